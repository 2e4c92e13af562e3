import type { ContextSession } from '../context/contextSession';
import { loadImageData } from '../images/imageData';
import { imageAttachment, imagePartOf, type ImageSource } from '../images/imageMessages';
import type { ImageBilling } from '../images/imageSize';
import { imageSupport } from '../images/imageSupport';
import { attachmentMessage } from '../model/factories';
import type { Message } from '../model/message';
import type { SessionStore } from '../ports/sessionStore';

/** How an agent's turns treat images: which model they go to, whether it takes them, where their bytes are. */
export class TurnImages {
  constructor(
    private readonly args: { providerId: string; model: string; store: SessionStore; contextSession: ContextSession; override?: boolean },
  ) {}

  /** Whose formula an image's cost follows: the provider ('anthropic', 'openai', …) and the model. */
  get billing(): ImageBilling {
    return { providerId: this.args.providerId, model: this.args.model };
  }

  /** Why the model cannot be sent these messages' images, or undefined when it can (or there are none). */
  refusal(messages: readonly Message[]): string | undefined {
    const count = messages.reduce((n, m) => n + (m.images?.length ?? 0), 0);
    if (count === 0) return undefined;
    const support = imageSupport(this.args.providerId, this.args.model, this.args.override);
    return support.ok ? undefined : `Not sent: ${count === 1 ? 'an image is' : `${count} images are`} in the request and ${support.reason}`;
  }

  /** Checks a request's images and reads back the bytes of those loaded from the store; the refusal, if any. */
  async prepare(messages: readonly Message[]): Promise<string | undefined> {
    const refused = this.refusal(messages);
    if (refused === undefined) await loadImageData(messages, this.args.store, this.args.contextSession.sessionId);
    return refused;
  }

  /** The images tools returned in one response, as messages after its results (every wire format takes images in user content). */
  toolImages(sources: readonly ImageSource[]): Message[] {
    return sources.map((source) => {
      try {
        return imageAttachment(imagePartOf(source, this.billing));
      } catch (error) {
        return attachmentMessage({ kind: 'image', label: source.label }, `[The image ${source.label} a tool returned could not be read: ${error instanceof Error ? error.message : String(error)}]`);
      }
    });
  }
}
