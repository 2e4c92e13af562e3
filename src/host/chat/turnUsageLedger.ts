import type { RequestUsageRecord } from '../../core/model/records';
import type { ModelPrices } from '../../core/providers/models/modelRegistry';
import type { ChatTurnUsage } from '../../protocol/chat';
import { turnUsage } from '../figures/turnFigures';

/** A user message shown: it starts a turn. */
export interface TurnStart {
  id: string;
  createdAt: number;
}

/**
 * The chat's turns and the requests each made: a record belongs to the last user message shown
 * before it, and a turn's figures are its own requests and its subagents' (at the prices set).
 */
export class TurnUsageLedger {
  private users: TurnStart[] = [];
  private turnRecords = new Map<string, RequestUsageRecord[]>();
  /** The subagents' requests (theirs and their own subagents'), by session and index; kept across a reset. */
  private subagentUsage = new Map<string, RequestUsageRecord>();
  private subagentRecords = new Map<string, RequestUsageRecord[]>();

  constructor(private prices: Record<string, ModelPrices> = {}) {}

  /** Forgets the turns and what they counted (the subagents' records are counted again with `recountSubagents`). */
  reset(): void {
    this.users = [];
    this.turnRecords = new Map();
    this.subagentRecords = new Map();
  }

  startTurn(user: TurnStart): void {
    this.users.push(user);
  }

  get lastUser(): TurnStart | undefined {
    return this.users[this.users.length - 1];
  }

  /** The turn after `user`'s, if one is shown. */
  nextAfter(user: TurnStart): TurnStart | undefined {
    return this.users[this.users.indexOf(user) + 1];
  }

  /** The user message whose turn a record made at `time` belongs to: the last one shown before it. */
  turnOf(time: number): TurnStart | undefined {
    let lo = 0;
    let hi = this.users.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.users[mid].createdAt <= time) lo = mid + 1;
      else hi = mid;
    }
    return this.users[lo - 1];
  }

  /** Counts a request of the session's own in its turn; returns the turn, if any is shown before it. */
  count(record: RequestUsageRecord): TurnStart | undefined {
    return this.file(this.turnRecords, record);
  }

  /** Counts a subagent's request once (read from the store or reported live); returns its turn, or undefined when known already. */
  countSubagent(record: RequestUsageRecord): TurnStart | undefined {
    const key = `${record.sessionId}\u0000${record.requestIndex}`;
    if (this.subagentUsage.has(key)) return undefined;
    this.subagentUsage.set(key, record);
    return this.file(this.subagentRecords, record);
  }

  /** After a reset: the subagents' requests kept go back in their turns; returns the turns that have some. */
  recountSubagents(): string[] {
    for (const record of this.subagentUsage.values()) this.file(this.subagentRecords, record);
    return [...this.subagentRecords.keys()];
  }

  /** A turn's figures: its own requests and its subagents'. */
  figuresOf(userId: string): ChatTurnUsage | undefined {
    return turnUsage(this.turnRecords.get(userId) ?? [], this.prices, this.subagentRecords.get(userId));
  }

  /** New prices; returns the turns with requests, whose figures change. */
  setPrices(prices: Record<string, ModelPrices>): string[] {
    this.prices = prices;
    return [...this.turnRecords.keys()];
  }

  private file(byTurn: Map<string, RequestUsageRecord[]>, record: RequestUsageRecord): TurnStart | undefined {
    const owner = this.turnOf(record.createdAt);
    if (!owner) return undefined;
    const list = byTurn.get(owner.id) ?? [];
    list.push(record);
    byTurn.set(owner.id, list);
    return owner;
  }
}
