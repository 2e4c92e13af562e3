import { importAnthropicMessages } from './anthropicMessages';
import { importMiniSweAgent } from './miniSweAgent';
import { importOpenAiChat } from './openaiChat';
import { checkJsonDepth } from './jsonDepth';
import { importSweAgent } from './sweAgent';
import { TranscriptError, type ImportedTranscript } from './types';

/** The last part of a path, `/` or `\\` separated (the name shown in import errors). */
function basename(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

function parseJson(file: string, text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) throw new TranscriptError(file, 'the file is empty');
  checkJsonDepth(file, trimmed);
  try {
    return JSON.parse(trimmed);
  } catch (error) {
    // JSONL: one message per line.
    const lines = trimmed.split(/\r?\n/).filter((l) => l.trim());
    if (lines.length > 1) {
      return lines.map((line, i) => {
        try {
          return JSON.parse(line);
        } catch (lineError) {
          throw new TranscriptError(file, `line ${i + 1} is not valid JSON (${(lineError as Error).message})`);
        }
      });
    }
    throw new TranscriptError(file, `not valid JSON (${(error as Error).message})`);
  }
}

function looksAnthropic(messages: unknown[]): boolean {
  return messages.some((m) => Array.isArray((m as { content?: unknown })?.content) && ((m as { content: Array<{ type?: string }> }).content).some((b) => b?.type === 'tool_use' || b?.type === 'tool_result'));
}

/** Imports a recorded run, detecting its format from the content. */
export function importTranscript(fileName: string, input: Uint8Array | string): ImportedTranscript {
  const file = basename(fileName);
  try {
    return importParsed(fileName, file, typeof input === 'string' ? input : new TextDecoder('utf-8').decode(input));
  } catch (error) {
    // A structure too deep for the stack (the depth check covers JSON; this catches the rest).
    if (error instanceof RangeError) throw new TranscriptError(file, `the transcript is nested too deeply to import (${error.message})`);
    throw error;
  }
}

function importParsed(fileName: string, file: string, text: string): ImportedTranscript {
  const data = parseJson(file, text);
  if (Array.isArray(data)) {
    if (data.length === 0) throw new TranscriptError(file, 'the transcript has no messages');
    return looksAnthropic(data) ? importAnthropicMessages(file, data) : importOpenAiChat(file, data);
  }
  if (!data || typeof data !== 'object') throw new TranscriptError(file, `expected a JSON object or list, found ${data === null ? 'null' : typeof data}`);
  const obj = data as Record<string, unknown>;
  if ('history' in obj) return importSweAgent(file, obj);
  if ('messages' in obj) {
    if (!Array.isArray(obj.messages)) throw new TranscriptError(file, 'messages must be a list', 'messages');
    if (obj.messages.length === 0) throw new TranscriptError(file, 'the transcript has no messages', 'messages');
    if (obj.trajectory_format !== undefined || fileName.endsWith('.traj.json') || (obj.messages as Array<{ content?: unknown }>).some((m) => typeof m?.content === 'string' && /<returncode>/.test(m.content))) {
      return importMiniSweAgent(file, obj);
    }
    if (looksAnthropic(obj.messages) || 'system' in obj) return importAnthropicMessages(file, obj.messages, obj.system);
    return importOpenAiChat(file, obj.messages);
  }
  throw new TranscriptError(file, 'not a known transcript format (OpenAI or Anthropic messages, SWE-agent .traj, mini-swe-agent .traj.json)');
}
