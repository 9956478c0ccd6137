/** Anything that tells the time in milliseconds, such as an RxJS scheduler. */
export interface Clock {
  now(): number;
}

/**
 * The msgIds persisted during the last `windowMs`, like JetStream's duplicate window. A Map keeps
 * insertion order and entries are inserted in time order, so expiry drops them from the front:
 * no timers, and no look at entries that are still live.
 */
export class DedupeWindow {
  private readonly entries = new Map<string, { readonly seq: number; readonly at: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
  ) {}

  /** The sequence first stored under `msgId`, while that is still inside the window. */
  seqOf(msgId: string): number | undefined {
    this.expire();
    return this.entries.get(msgId)?.seq;
  }

  /** Records a newly stored message; call only when `seqOf(msgId)` found nothing. */
  remember(msgId: string, seq: number): void {
    this.entries.set(msgId, { seq, at: this.clock.now() });
  }

  private expire(): void {
    const cutoff = this.clock.now() - this.windowMs;
    for (const [msgId, entry] of this.entries) {
      if (entry.at > cutoff) return;
      this.entries.delete(msgId);
    }
  }
}
