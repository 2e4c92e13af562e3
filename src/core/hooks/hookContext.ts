import type { InstructionPart } from '../prompt/promptSections';
import type { HookEventName } from './hookConfig';

interface Added {
  event: HookEventName;
  command: string;
  text: string;
  /** Kept for the session (SessionStart), or until the next prompt. */
  keep: 'session' | 'turn';
}

/**
 * What hooks added to the context, each addition an item of its own in the request's dynamic part
 * (owner "hooks", source: the hook's command). A SessionStart hook's text stays for the session;
 * the others' stay until the user's next prompt.
 */
export class HookContext {
  private added: Added[] = [];

  add(event: HookEventName, additions: ReadonlyArray<{ command: string; text: string }>): void {
    for (const { command, text } of additions) {
      this.added = this.added.filter((a) => !(a.event === event && a.command === command));
      this.added.push({ event, command, text, keep: event === 'SessionStart' ? 'session' : 'turn' });
    }
  }

  /** A new prompt: what the last turn's hooks added goes. */
  newTurn(): void {
    this.added = this.added.filter((a) => a.keep === 'session');
  }

  parts(): InstructionPart[] {
    return this.added.map((a) => ({
      path: `${a.event}:${a.command}`,
      label: `${a.event} hook`,
      text: a.text,
      followsActiveFile: true,
      hook: { event: a.event, command: a.command },
    }));
  }
}
