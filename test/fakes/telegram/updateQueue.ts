import type { Update } from "grammy/types";
import { conflict, type BotApiError } from "./botApiError.js";
import type { GetUpdatesArgs } from "./methodSchemas.js";

/** The update types a bot gets when it never named any (or named an empty list): all but these three. */
const NOT_BY_DEFAULT = new Set(["chat_member", "message_reaction", "message_reaction_count"]);

/** An update as the test pushes it: everything but its `update_id`, which the queue assigns. */
export type UpdateBody = Omit<Update, "update_id">;

interface WaitingPoll {
  readonly offset: number;
  readonly limit: number;
  readonly answer: (updates: Update[]) => void;
  readonly refuse: (error: BotApiError) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The bot's pending updates and long polling, as Telegram keeps them: `update_id`s count up; a
 * `getUpdates` with `offset` confirms (forgets) every update below it; a poll with `timeout` waits until an
 * update arrives; a newer waiting poll ends the earlier one with 409; `allowed_updates` filters updates
 * pushed after it is set. It also counts how many `getUpdates` were in flight at once.
 */
/** How long an arriving poll waits for one whose caller may already have hung up (see `admitPoller`). */
const HUNG_UP_GRACE_MS = 100;

export class UpdateQueue {
  private readonly queue: Update[] = [];
  private nextUpdateId: number;
  private allowed: ReadonlySet<string> | undefined;
  private waiting: WaitingPoll | undefined;
  private wakeScheduled = false;
  private inFlight = 0;
  /** The most `getUpdates` calls ever in flight at once: 1 when pollers never overlapped. */
  maxConcurrentPollers = 0;
  /** How many polls were ended with 409 by a newer one. */
  conflicts = 0;
  /** Updates pushed while their type was not allowed: Telegram never queues them. */
  readonly filtered: Update[] = [];
  /** Called after an update is queued (webhook delivery listens). */
  onQueued: (() => void) | undefined;

  constructor(firstUpdateId: number) {
    this.nextUpdateId = firstUpdateId;
  }

  /** Queues an update from a user (or drops it when its type is not allowed), returning it with its id. */
  push(body: UpdateBody): Update {
    const update = { update_id: this.nextUpdateId++, ...body } as Update;
    if (!this.isAllowed(update)) {
      this.filtered.push(update);
      return update;
    }
    this.queue.push(update);
    this.scheduleWake();
    this.onQueued?.();
    return update;
  }

  /** Updates not yet confirmed, oldest first. */
  pending(): readonly Update[] {
    return this.queue;
  }

  /** Forgets every update below `offset` (what a poll's offset, or a delivered webhook call, confirms). */
  confirmBelow(offset: number): void {
    while (this.queue.length > 0 && this.queue[0]!.update_id < offset) this.queue.shift();
  }

  /** Forgets every pending update (`drop_pending_updates`). */
  dropAll(): void {
    this.queue.length = 0;
  }

  /** Sets the types later pushes are filtered by; an empty list is the default set. */
  allow(types: readonly string[] | undefined): void {
    if (types === undefined) return;
    this.allowed = types.length === 0 ? undefined : new Set(types);
  }

  /**
   * One `getUpdates` arrived: counts it in flight until the returned release is called. When another is
   * in flight, it first waits up to 100 ms for that one to go, so that a poll whose caller already hung
   * up (its socket closed just before this one connected, as when grammY stops and confirms its
   * offset) is let go before the two are judged to overlap: on a loaded machine the server hears of
   * the closed socket some event-loop turns later (two turns were once not enough). A caller still
   * polling stays in flight past that, and the overlap is counted.
   */
  async admitPoller(): Promise<() => void> {
    for (let waited = 0; this.inFlight > 0 && waited < HUNG_UP_GRACE_MS; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    this.inFlight++;
    this.maxConcurrentPollers = Math.max(this.maxConcurrentPollers, this.inFlight);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
    };
  }

  /** The number of `getUpdates` calls in flight now. */
  get pollersInFlight(): number {
    return this.inFlight;
  }

  /**
   * A `getUpdates`: the updates from `offset` (up to `limit`) now, or, with a timeout and none there, as
   * soon as one is pushed ([] when the timeout passes). `gone` is the caller's connection closing.
   */
  getUpdates(args: GetUpdatesArgs, gone: AbortSignal): Promise<Update[]> {
    this.allow(args.allowedUpdates);
    const offset = this.applyOffset(args.offset);
    const ready = this.from(offset, args.limit);
    if (ready.length > 0 || args.timeoutSeconds === 0) return Promise.resolve(ready);
    this.endWaiting(conflict("terminated by other getUpdates request; make sure that only one bot instance is running"));
    return new Promise((answer, refuse) => {
      const timer = setTimeout(() => settle(() => answer([])), args.timeoutSeconds * 1000);
      const poll: WaitingPoll = { offset, limit: args.limit, answer: (updates) => settle(() => answer(updates)), refuse: (error) => settle(() => refuse(error)), timer };
      const settle = (finish: () => void) => {
        clearTimeout(timer);
        gone.removeEventListener("abort", onGone);
        if (this.waiting === poll) this.waiting = undefined;
        finish();
      };
      // A poll whose caller hung up waits no more; no later poll is "terminated" by it.
      const onGone = () => settle(() => answer([]));
      gone.addEventListener("abort", onGone);
      this.waiting = poll;
    });
  }

  /** Ends a waiting poll with this error (a newer poll's 409, setWebhook's 409). */
  endWaiting(error: BotApiError): void {
    const poll = this.waiting;
    if (!poll) return;
    this.waiting = undefined;
    this.conflicts++;
    poll.refuse(error);
  }

  /** Ends a waiting poll empty-handed (the fake closing). */
  release(): void {
    this.waiting?.answer([]);
  }

  private applyOffset(offset: number): number {
    if (offset < 0) this.queue.splice(0, Math.max(0, this.queue.length + offset));
    if (offset > 0) this.confirmBelow(offset);
    return offset > 0 ? offset : (this.queue[0]?.update_id ?? this.nextUpdateId);
  }

  private from(offset: number, limit: number): Update[] {
    return this.queue.filter((update) => update.update_id >= offset).slice(0, limit);
  }

  /** Wakes a waiting poll once per tick, so updates pushed together arrive together. */
  private scheduleWake(): void {
    if (!this.waiting || this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      const poll = this.waiting;
      if (!poll) return;
      const ready = this.from(poll.offset, poll.limit);
      if (ready.length > 0) poll.answer(ready);
    });
  }

  private isAllowed(update: Update): boolean {
    const type = Object.keys(update).find((key) => key !== "update_id");
    if (type === undefined) return false;
    return this.allowed ? this.allowed.has(type) : !NOT_BY_DEFAULT.has(type);
  }
}
