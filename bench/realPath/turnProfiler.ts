/** A CPU profile of part of a run (the turns, not the open), through the inspector protocol; open the file in Chrome DevTools. */
import { writeFileSync } from 'fs';
import { Session } from 'inspector';

export class TurnProfiler {
  private constructor(private readonly session: Session) {}

  static async start(): Promise<TurnProfiler> {
    const session = new Session();
    session.connect();
    const post = (method: string, params: object = {}) => new Promise<unknown>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
    return new TurnProfiler(session);
  }

  async stopInto(file: string): Promise<void> {
    const result = await new Promise<{ profile: unknown }>((resolve, reject) => this.session.post('Profiler.stop', (error, value) => (error ? reject(error) : resolve(value as { profile: unknown }))));
    writeFileSync(file, JSON.stringify(result.profile));
    this.session.disconnect();
  }
}
