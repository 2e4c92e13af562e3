import * as vscode from 'vscode';
import type { ProviderKind } from '../config/readSettings';

/** API keys live only in SecretStorage (never in settings, logs, the database or exports). */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private key(provider: ProviderKind): string {
    return `tally.apiKey.${provider}`;
  }

  get(provider: ProviderKind): Thenable<string | undefined> {
    return this.secrets.get(this.key(provider));
  }

  async set(provider: ProviderKind, value: string): Promise<void> {
    const trimmed = value.trim();
    if (!trimmed) await this.secrets.delete(this.key(provider));
    else await this.secrets.store(this.key(provider), trimmed);
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith('tally.apiKey.')) listener();
    });
  }
}
