import * as vscode from 'vscode';
import { parseStoredKey, serializeStoredKey, type KeyedProvider, type StoredKey } from '../core/providers/http/endpointOrigin';

/**
 * API keys live only in SecretStorage (never in settings, logs, the database or exports), each
 * with the endpoint origin it was entered for. Keys saved before origins were stored count as
 * entered for the provider's default endpoint.
 */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private key(provider: KeyedProvider): string {
    return `tally.apiKey.${provider}`;
  }

  /** The key with the origin it may be sent to. */
  async getBound(provider: KeyedProvider): Promise<StoredKey | undefined> {
    return parseStoredKey(provider, await this.secrets.get(this.key(provider)));
  }

  async get(provider: KeyedProvider): Promise<string | undefined> {
    return (await this.getBound(provider))?.key;
  }

  /** Saves `value` for requests to `origin`; an empty value removes the key. */
  async set(provider: KeyedProvider, value: string, origin: string | undefined): Promise<void> {
    const trimmed = value.trim();
    if (!trimmed) await this.secrets.delete(this.key(provider));
    else await this.secrets.store(this.key(provider), serializeStoredKey({ key: trimmed, origin }));
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith('tally.apiKey.')) listener();
    });
  }
}
