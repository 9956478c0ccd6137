import { Observable, type SchedulerLike, type Subscriber, type Subscription } from "rxjs";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";
import { isGroupChannel } from "../ingress/groupChannel.js";
import type { OutboundMessage } from "./outboundMessage.js";
import type { RateBuckets, Take } from "./rateBuckets.js";
import { sendKind, type SendKind } from "./sendKind.js";
import { bucketFull, earliestDeparture, heldUntil, latenessMarginOf, takeToken, widened, type BucketLimit, type BucketState } from "./tokenBucket.js";

/** One platform's limits, resolved from `[rate_limits.<platform>]`. */
export interface PlatformRateLimits {
  /** Each conversation (chat, channel) of the platform. */
  readonly perConversation?: BucketLimit;
  /** Each group conversation, besides its `perConversation`. */
  readonly perGroup?: BucketLimit;
  /** The whole deployment's sends to the platform, shared across workers. */
  readonly perBot?: BucketLimit;
  /** Kinds of send the conversation's and the group's buckets count (a platform counts what it counts). */
  readonly conversationCounts: ReadonlySet<SendKind>;
  /** Kinds of send the bot's bucket counts. */
  readonly botCounts: ReadonlySet<SendKind>;
}

/** What a send is, for its limits: to a group conversation or not, a reply to a person or proactive. */
export interface SendClass {
  readonly group: boolean;
  /** Replies to people go before proactive sends when the bot's bucket is contended. */
  readonly human: boolean;
}

/** A send a bucket held: how long it waited in all, and which bucket held it last. */
export interface ShapedWait {
  readonly platform: string;
  readonly waitedMs: number;
  readonly bucket: "conversation" | "bot";
}

export interface SendShaperOptions {
  /** The platform's limits; `undefined`: none (sends go at once). */
  readonly limits: (platform: string) => PlatformRateLimits | undefined;
  /** Where the per-bot buckets live: shared by the workers of a deployment. */
  readonly bot: RateBuckets;
  readonly scheduler: SchedulerLike;
  /** Conversation buckets remembered at once; past it, those as good as new are forgotten. Default 10,000. */
  readonly maxKeys?: number;
  /** Told of each send that waited, as it leaves. */
  readonly onWait?: (wait: ShapedWait) => void;
  /** Told when the bot's bucket could not be asked (the send then goes by the conversation's limits alone). */
  readonly onBucketError?: (err: unknown) => void;
}

/** A conversation's (`c…`) or group's (`g…`) bucket, by its key here. */
interface ConversationBucket {
  readonly id: string;
  readonly limit: BucketLimit;
}

/** One send waiting in its conversation's lane. */
interface Ticket {
  readonly message: OutboundMessage;
  readonly sendClass: SendClass;
  readonly limits: PlatformRateLimits;
  readonly kind: SendKind;
  /** The conversation's and group's buckets the send counts against. */
  readonly buckets: readonly ConversationBucket[];
  readonly arrived: number;
  /** Called once the send may go. */
  readonly go: () => void;
  /** The timer or bucket request the ticket waits on, while it heads its lane. */
  waiting?: Subscription;
  /** The bucket that last held the send (a timer waited for it); absent: none did. */
  heldBy?: ShapedWait["bucket"];
}

/**
 * Holds each send until the platform's limits let it go (`[rate_limits.<platform>]`): sends wait for
 * their token instead of failing. A conversation's sends go through one lane, in order: the head
 * waits for its conversation's and group's buckets (kept here: a session's sends all come from its
 * owner), then takes the bot's token from `bot` (shared across workers), and goes; the next one is
 * considered then. Sends of other conversations do not wait for it, but share the bot's bucket,
 * where replies to people reserve the next token and proactive sends only take one there is now.
 * A bot's token is taken for a time: a send that would leave more than a margin after it (a slow
 * shared bucket, a late timer) asks again, and the bot's window is widened to allow for that.
 *
 * Composed with bubble pacing, a bubble's gap is the larger of the two: pacing releases it, and the
 * lane holds it until its bucket has room. A gateway's "try again later" (`refused`) holds the
 * conversation's bucket until then. Time comes from `scheduler`.
 */
export class SendShaper {
  readonly #options: SendShaperOptions;
  readonly #maxKeys: number;
  readonly #lanes = new Map<string, Ticket[]>();
  readonly #buckets = new Map<string, { state: BucketState; limit: BucketLimit }>();
  /** Each per-bot limit as the shared bucket is asked for it (see `#sharedLimit`). */
  readonly #shared = new WeakMap<BucketLimit, { readonly limit: BucketLimit; readonly margin: number }>();

  constructor(options: SendShaperOptions) {
    this.#options = options;
    this.#maxKeys = options.maxKeys ?? 10_000;
  }

  /** `send()`'s emissions, subscribed once `message` may go; at once when no limit counts it. */
  shape<T>(message: OutboundMessage, sendClass: SendClass, send: () => Observable<T>): Observable<T> {
    const limits = this.#options.limits(message.platform);
    if (limits === undefined) return send();
    const kind = sendKind(message.command);
    if (!limits.conversationCounts.has(kind) && !(limits.perBot !== undefined && limits.botCounts.has(kind))) return send();
    return new Observable<T>((subscriber) => this.#enqueue(message, sendClass, limits, kind, send, subscriber));
  }

  /**
   * The gateway refused a send to `message`'s conversation for `waitMs`, and the sender will make
   * it again then: the conversation's bucket is held until that retry, which takes its token; the
   * next send follows it at the conversation's rate.
   */
  refused(message: OutboundMessage, waitMs: number): void {
    const limits = this.#options.limits(message.platform);
    if (limits === undefined) return;
    const until = this.#options.scheduler.now() + waitMs;
    const key = conversationKey(message);
    // A conversation without a limit of its own still waits: held as a bucket of one per wait.
    const limit = limits.perConversation ?? { messages: 1, perSecs: Math.max(waitMs, 1) / 1000, burst: 1 };
    this.#buckets.set(`c${key}`, { state: heldUntil(this.#buckets.get(`c${key}`)?.state, limit, until), limit });
  }

  #enqueue<T>(message: OutboundMessage, sendClass: SendClass, limits: PlatformRateLimits, kind: SendKind, send: () => Observable<T>, subscriber: Subscriber<T>): () => void {
    const key = conversationKey(message);
    let sending: Subscription | undefined;
    const ticket: Ticket = {
      message,
      sendClass,
      limits,
      kind,
      buckets: conversationBuckets(key, limits, kind, sendClass),
      arrived: this.#options.scheduler.now(),
      go: () => {
        sending = send().subscribe(subscriber);
      },
    };
    const lane = this.#lanes.get(key);
    if (lane === undefined) {
      this.#lanes.set(key, [ticket]);
      this.#consider(key, ticket);
    } else {
      lane.push(ticket);
    }
    return () => {
      sending?.unsubscribe();
      this.#leave(key, ticket);
    };
  }

  /** The lane's head: waits for its conversation's buckets (and any hold on them), then for the bot's, then goes. */
  #consider(key: string, ticket: Ticket): void {
    const { limits, kind, message, sendClass } = ticket;
    const { scheduler, bot } = this.#options;
    // Checked again on each call: a hold learned from the gateway while this send waited comes first.
    const now = scheduler.now();
    const at = this.#conversationDeparture(key, ticket, now);
    if (at > now) {
      ticket.heldBy = "conversation";
      ticket.waiting = scheduler.schedule(() => this.#consider(key, ticket), at - now);
      return;
    }
    if (limits.perBot === undefined || !limits.botCounts.has(kind)) {
      this.#depart(key, ticket);
      return;
    }
    const sharedLimit = this.#sharedLimit(limits.perBot).limit;
    if (bot.takeNow !== undefined) {
      this.#botAnswered(key, ticket, bot.takeNow(message.platform, sharedLimit, now, sendClass.human ? "reserve" : "now"));
      return;
    }
    let answered = false;
    const asked = bot.take(message.platform, sharedLimit, now, sendClass.human ? "reserve" : "now").subscribe({
      next: (take: Take) => {
        answered = true;
        this.#botAnswered(key, ticket, take);
      },
      error: (err: unknown) => {
        answered = true;
        this.#options.onBucketError?.(err);
        this.#depart(key, ticket);
      },
    });
    // A synchronous answer may already have scheduled the next wait on the ticket: keep that one.
    if (!answered) ticket.waiting = asked;
  }

  #botAnswered(key: string, ticket: Ticket, take: Take): void {
    const { scheduler } = this.#options;
    const now = scheduler.now();
    if (!take.taken) {
      ticket.heldBy = "bot";
      ticket.waiting = scheduler.schedule(() => this.#consider(key, ticket), Math.max(1, take.at - now));
      return;
    }
    if (take.at > now) {
      ticket.heldBy = "bot";
      ticket.waiting = scheduler.schedule(() => this.#leaveAt(key, ticket, take.at), take.at - now);
      return;
    }
    this.#leaveAt(key, ticket, take.at);
  }

  /**
   * The bot's token was taken for `at`: the send goes now if that is at most the margin late (a
   * slow answer, a late timer), else it asks again — the late token is left unused, so the
   * deployment's real sends never crowd a window.
   */
  #leaveAt(key: string, ticket: Ticket, at: number): void {
    const now = this.#options.scheduler.now();
    const perBot = ticket.limits.perBot as BucketLimit;
    if (now - at > this.#sharedLimit(perBot).margin) {
      ticket.heldBy = "bot";
      this.#consider(key, ticket);
      return;
    }
    this.#depart(key, ticket);
  }

  /**
   * The bot's limit as asked of the shared bucket: its window widened by four times the margin
   * (100 ms on a window of a second or more) — one for how late a send may leave after its token's
   * time, three for the sends of several workers taking paths of different length to the platform
   * (an edge's queue, another host) — so what arrives there keeps the limit. The sustained rate is
   * that much lower: 30 per 1.1 s for Telegram's 30 per second.
   */
  #sharedLimit(limit: BucketLimit): { readonly limit: BucketLimit; readonly margin: number } {
    let shared = this.#shared.get(limit);
    if (shared === undefined) {
      const margin = latenessMarginOf(limit);
      shared = { limit: widened(limit, 4 * margin), margin };
      this.#shared.set(limit, shared);
    }
    return shared;
  }

  /** Takes the conversation's tokens now, lets the send go, and turns to the lane's next. */
  #depart(key: string, ticket: Ticket): void {
    const now = this.#options.scheduler.now();
    for (const { id, limit } of ticket.buckets) this.#buckets.set(id, { state: takeToken(this.#buckets.get(id)?.state, limit, now), limit });
    if (this.#buckets.size > this.#maxKeys) this.#forgetFull(now);
    // Only a bucket's hold is a wait: the time asking a shared bucket takes is not.
    if (ticket.heldBy !== undefined) this.#options.onWait?.({ platform: ticket.message.platform, waitedMs: now - ticket.arrived, bucket: ticket.heldBy });
    delete ticket.waiting;
    // Subscribed before the next is considered, which may go at once: the lane's order is the send order.
    ticket.go();
    this.#next(key, ticket);
  }

  /** The earliest time the conversation's and group's buckets (and any hold on them) let `ticket` go. */
  #conversationDeparture(key: string, ticket: Ticket, now: number): number {
    let at = now;
    for (const { id, limit } of ticket.buckets) at = Math.max(at, earliestDeparture(this.#buckets.get(id)?.state, limit, now));
    const held = this.#buckets.get(`c${key}`);
    // A hold on a conversation without a limit of its own (see `refused`).
    if (ticket.limits.perConversation === undefined && held !== undefined) at = Math.max(at, held.state.at);
    return at;
  }

  /** `ticket` left its lane's head (sent or unsubscribed): the next one is considered. */
  #next(key: string, ticket: Ticket): void {
    const lane = this.#lanes.get(key);
    if (lane?.[0] !== ticket) return;
    lane.shift();
    const head = lane[0];
    if (head === undefined) this.#lanes.delete(key);
    else this.#consider(key, head);
  }

  #leave(key: string, ticket: Ticket): void {
    ticket.waiting?.unsubscribe();
    delete ticket.waiting;
    const lane = this.#lanes.get(key);
    if (lane === undefined) return;
    if (lane[0] === ticket) {
      this.#next(key, ticket);
      return;
    }
    const index = lane.indexOf(ticket);
    if (index > 0) lane.splice(index, 1);
  }

  #forgetFull(now: number): void {
    for (const [id, { state, limit }] of this.#buckets) if (bucketFull(state, limit, now)) this.#buckets.delete(id);
  }
}

const NO_BUCKETS: readonly ConversationBucket[] = [];

/** The conversation's and group's buckets a send of `kind` counts against. */
function conversationBuckets(key: string, limits: PlatformRateLimits, kind: SendKind, sendClass: SendClass): readonly ConversationBucket[] {
  if (!limits.conversationCounts.has(kind)) return NO_BUCKETS;
  const group = sendClass.group && limits.perGroup !== undefined;
  if (limits.perConversation === undefined) return group ? [{ id: `g${key}`, limit: limits.perGroup as BucketLimit }] : NO_BUCKETS;
  const conversation = { id: `c${key}`, limit: limits.perConversation };
  return group ? [conversation, { id: `g${key}`, limit: limits.perGroup as BucketLimit }] : [conversation];
}

/** A conversation across the deployment: its platform and channel (a chat's threads share its limits). */
function conversationKey(message: OutboundMessage): string {
  return `${message.platform}\u0000${message.channel.id}`;
}

/** What an event's sends are, for their limits: to a group conversation or not, a reply to a person or proactive. */
export function sendClassOf(event: Pick<GatewayEvent, "channel"> & { readonly proactive?: boolean | undefined }): SendClass {
  return { group: isGroupChannel(event.channel), human: event.proactive !== true };
}
