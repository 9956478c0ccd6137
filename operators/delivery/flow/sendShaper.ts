import { Observable, type SchedulerLike, type Subscription } from "rxjs";
import type { GatewayEvent } from "../../ingress/gatewayEvent.js";
import { isGroupChannel } from "../../ingress/groupChannel.js";
import type { OutboundMessage } from "../outboundMessage.js";
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
  /** The platform's limits, asked once per platform; `undefined`: none (its sends go at once). */
  readonly limits: (platform: string) => PlatformRateLimits | undefined;
  /** Where the per-bot buckets live: shared by the workers of a deployment. */
  readonly bot: RateBuckets;
  readonly scheduler: SchedulerLike;
  /** Conversations remembered at once; past it, those whose buckets are as good as new are forgotten. Default 10,000. */
  readonly maxKeys?: number;
  /** Told of each send that waited, as it leaves. */
  readonly onWait?: (wait: ShapedWait) => void;
  /** Told when the bot's bucket could not be asked (the send then goes by the conversation's limits alone). */
  readonly onBucketError?: (err: unknown) => void;
}

/** A platform's limits as this shaper applies them, and its conversations. */
interface Platform {
  readonly name: string;
  readonly limits: PlatformRateLimits;
  /** The per-bot limit as the shared bucket is asked for it (see `platformOf`), and the margin. */
  readonly shared: BucketLimit | undefined;
  readonly margin: number;
  readonly conversations: Map<string, Conversation>;
}

/** One conversation's buckets and lane (a chat's threads share them). */
interface Conversation {
  readonly platform: Platform;
  /** The `perConversation` bucket. */
  bucket: BucketState | undefined;
  /** The `perGroup` bucket. */
  group: BucketState | undefined;
  /** Nothing goes before this (a gateway's `retry_after` for a conversation without a limit of its own). */
  heldUntil: number;
  /** Sends waiting, the head first; absent when none waits. */
  lane: Ticket[] | undefined;
}

/** One send waiting in its conversation's lane. */
interface Ticket {
  readonly conversation: Conversation;
  readonly message: OutboundMessage;
  readonly human: boolean;
  /** Whether the conversation's buckets (and the group's, `group`) count the send. */
  readonly counted: boolean;
  readonly group: boolean;
  /** Whether the bot's bucket counts the send. */
  readonly botCounted: boolean;
  readonly arrived: number;
  /** Called once the send may go. */
  readonly go: () => void;
  /** The timer or bucket request the ticket waits on, while it heads its lane. */
  waiting: Subscription | undefined;
  /** The bucket that last held the send (a timer waited for it); absent: none did. */
  heldBy: ShapedWait["bucket"] | undefined;
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
 *
 * Per send, when no limit binds: two lookups (platform, conversation), the bucket arithmetic, and a
 * ticket through an otherwise empty lane; no key is built and no stream is made (`hold`).
 */
export class SendShaper {
  readonly #options: SendShaperOptions;
  readonly #maxKeys: number;
  /** Each platform asked about, `undefined` when it has no limits. */
  readonly #platforms = new Map<string, Platform | undefined>();
  /** Conversations remembered, across platforms. */
  #remembered = 0;
  /** When `#remembered` passes this, those as good as new are forgotten (then twice what is left, so a sweep is amortised). */
  #sweepAt: number;

  constructor(options: SendShaperOptions) {
    this.#options = options;
    this.#maxKeys = options.maxKeys ?? 10_000;
    this.#sweepAt = this.#maxKeys;
  }

  /** `send()`'s emissions, subscribed once `message` may go; at once when no limit counts it. */
  shape<T>(message: OutboundMessage, sendClass: SendClass, send: () => Observable<T>): Observable<T> {
    const platform = this.#platformOf(message.platform);
    if (platform === undefined || !counts(platform.limits, sendKind(message.command))) return send();
    return new Observable<T>((subscriber) => {
      let sending: Subscription | undefined;
      const cancel = this.hold(message, sendClass, () => {
        sending = send().subscribe(subscriber);
      });
      return () => {
        sending?.unsubscribe();
        cancel();
      };
    });
  }

  /**
   * `shape` without a stream of its own: calls `go` once `message` may go — before returning when
   * nothing holds it — and returns what cancels the wait (a no-op once `go` was called). For a
   * sender that already builds one Observable per message (the broker's).
   */
  hold(message: OutboundMessage, sendClass: SendClass, go: () => void): () => void {
    const platform = this.#platformOf(message.platform);
    const kind = sendKind(message.command);
    if (platform === undefined || !counts(platform.limits, kind)) {
      go();
      return noop;
    }
    const { limits } = platform;
    const counted = limits.conversationCounts.has(kind);
    const botCounted = platform.shared !== undefined && limits.botCounts.has(kind);
    const group = sendClass.group && limits.perGroup !== undefined;
    const conversation = this.#conversationOf(platform, message.channel.id);
    const ticket: Ticket = { conversation, message, human: sendClass.human, counted, group, botCounted, arrived: this.#options.scheduler.now(), go, waiting: undefined, heldBy: undefined };
    if (conversation.lane === undefined) {
      conversation.lane = [ticket];
      this.#consider(ticket);
    } else {
      conversation.lane.push(ticket);
    }
    return () => this.#leave(ticket);
  }

  /**
   * The gateway refused a send to `message`'s conversation for `waitMs`, and the sender will make
   * it again then: the conversation's bucket is held until that retry, which takes its token; the
   * next send follows it at the conversation's rate.
   */
  refused(message: OutboundMessage, waitMs: number): void {
    const platform = this.#platformOf(message.platform);
    if (platform === undefined) return;
    const until = this.#options.scheduler.now() + waitMs;
    const conversation = this.#conversationOf(platform, message.channel.id);
    const limit = platform.limits.perConversation;
    // A conversation without a limit of its own still waits, until then.
    if (limit === undefined) conversation.heldUntil = Math.max(conversation.heldUntil, until);
    else conversation.bucket = heldUntil(conversation.bucket, limit, until);
  }

  /** The platform's limits as applied here: `limits` is asked once per platform. */
  #platformOf(name: string): Platform | undefined {
    let platform = this.#platforms.get(name);
    if (platform === undefined && !this.#platforms.has(name)) {
      platform = platformOf(name, this.#options.limits(name));
      this.#platforms.set(name, platform);
    }
    return platform;
  }

  #conversationOf(platform: Platform, id: string): Conversation {
    let conversation = platform.conversations.get(id);
    if (conversation === undefined) {
      // Swept before it is added: a new conversation is as good as new.
      if (this.#remembered >= this.#sweepAt) this.#forgetFull(this.#options.scheduler.now());
      conversation = { platform, bucket: undefined, group: undefined, heldUntil: 0, lane: undefined };
      platform.conversations.set(id, conversation);
      this.#remembered += 1;
    }
    return conversation;
  }

  /** The lane's head: waits for its conversation's buckets (and any hold on them), then for the bot's, then goes. */
  #consider(ticket: Ticket): void {
    const { conversation } = ticket;
    const { scheduler, bot } = this.#options;
    // Checked again on each call: a hold learned from the gateway while this send waited comes first.
    const now = scheduler.now();
    const at = departureOf(conversation, ticket.counted, ticket.group, now);
    if (at > now) {
      ticket.heldBy = "conversation";
      ticket.waiting = scheduler.schedule(() => this.#consider(ticket), at - now);
      return;
    }
    if (!ticket.botCounted) {
      this.#depart(ticket);
      return;
    }
    const { name, shared } = conversation.platform;
    const mode = ticket.human ? "reserve" : "now";
    if (bot.takeNow !== undefined) {
      this.#botAnswered(ticket, bot.takeNow(name, shared as BucketLimit, now, mode));
      return;
    }
    let answered = false;
    const asked = bot.take(name, shared as BucketLimit, now, mode).subscribe({
      next: (take: Take) => {
        answered = true;
        this.#botAnswered(ticket, take);
      },
      error: (err: unknown) => {
        answered = true;
        this.#options.onBucketError?.(err);
        this.#depart(ticket);
      },
    });
    // A synchronous answer may already have scheduled the next wait on the ticket: keep that one.
    if (!answered) ticket.waiting = asked;
  }

  #botAnswered(ticket: Ticket, take: Take): void {
    const { scheduler } = this.#options;
    const now = scheduler.now();
    if (!take.taken) {
      ticket.heldBy = "bot";
      ticket.waiting = scheduler.schedule(() => this.#consider(ticket), Math.max(1, take.at - now));
      return;
    }
    if (take.at > now) {
      ticket.heldBy = "bot";
      ticket.waiting = scheduler.schedule(() => this.#leaveAt(ticket, take.at), take.at - now);
      return;
    }
    this.#leaveAt(ticket, take.at);
  }

  /**
   * The bot's token was taken for `at`: the send goes now if that is at most the margin late (a
   * slow answer, a late timer), else it asks again — the late token is left unused, so the
   * deployment's real sends never crowd a window.
   */
  #leaveAt(ticket: Ticket, at: number): void {
    const now = this.#options.scheduler.now();
    if (now - at > ticket.conversation.platform.margin) {
      ticket.heldBy = "bot";
      this.#consider(ticket);
      return;
    }
    this.#depart(ticket);
  }

  /** Takes the conversation's tokens now, lets the send go, and turns to the lane's next. */
  #depart(ticket: Ticket): void {
    const now = this.#options.scheduler.now();
    if (ticket.counted) takeTokens(ticket.conversation, ticket.group, now);
    // Only a bucket's hold is a wait: the time asking a shared bucket takes is not.
    if (ticket.heldBy !== undefined) this.#options.onWait?.({ platform: ticket.message.platform, waitedMs: now - ticket.arrived, bucket: ticket.heldBy });
    ticket.waiting = undefined;
    // Subscribed before the next is considered, which may go at once: the lane's order is the send order.
    ticket.go();
    this.#next(ticket);
  }

  /** `ticket` left its lane's head (sent or unsubscribed): the next one is considered. */
  #next(ticket: Ticket): void {
    const { conversation } = ticket;
    const lane = conversation.lane;
    if (lane?.[0] !== ticket) return;
    lane.shift();
    const head = lane[0];
    if (head === undefined) conversation.lane = undefined;
    else this.#consider(head);
  }

  #leave(ticket: Ticket): void {
    ticket.waiting?.unsubscribe();
    ticket.waiting = undefined;
    const lane = ticket.conversation.lane;
    if (lane === undefined) return;
    if (lane[0] === ticket) {
      this.#next(ticket);
      return;
    }
    const index = lane.indexOf(ticket);
    if (index > 0) lane.splice(index, 1);
  }

  #forgetFull(now: number): void {
    for (const platform of this.#platforms.values()) {
      if (platform === undefined) continue;
      const { conversations } = platform;
      for (const [id, conversation] of conversations) {
        if (!asGoodAsNew(conversation, now)) continue;
        conversations.delete(id);
        this.#remembered -= 1;
      }
    }
    this.#sweepAt = Math.max(this.#maxKeys, 2 * this.#remembered);
  }
}

const noop = (): void => undefined;

/** Whether any of the platform's buckets counts a send of `kind`. */
function counts(limits: PlatformRateLimits, kind: SendKind): boolean {
  return limits.conversationCounts.has(kind) || (limits.perBot !== undefined && limits.botCounts.has(kind));
}

/**
 * A platform as applied here. The bot's limit is asked of the shared bucket with its window widened
 * by four times the margin (100 ms on a window of a second or more) — one for how late a send may
 * leave after its token's time, three for the sends of several workers taking paths of different
 * length to the platform (an edge's queue, another host) — so what arrives there keeps the limit.
 * The sustained rate is that much lower: 30 per 1.1 s for Telegram's 30 per second.
 */
function platformOf(name: string, limits: PlatformRateLimits | undefined): Platform | undefined {
  if (limits === undefined) return undefined;
  const { perBot } = limits;
  const margin = perBot === undefined ? 0 : latenessMarginOf(perBot);
  return { name, limits, shared: perBot === undefined ? undefined : widened(perBot, 4 * margin), margin, conversations: new Map() };
}

/** The earliest time the conversation's buckets that count the send (and any hold on them) let it go. */
function departureOf(conversation: Conversation, counted: boolean, group: boolean, now: number): number {
  let at = Math.max(now, conversation.heldUntil);
  if (!counted) return at;
  const { perConversation, perGroup } = conversation.platform.limits;
  if (perConversation !== undefined) at = Math.max(at, earliestDeparture(conversation.bucket, perConversation, now));
  if (group) at = Math.max(at, earliestDeparture(conversation.group, perGroup as BucketLimit, now));
  return at;
}

/** Takes the conversation's token (and the group's, `group`) at `now`. */
function takeTokens(conversation: Conversation, group: boolean, now: number): void {
  const { perConversation, perGroup } = conversation.platform.limits;
  if (perConversation !== undefined) conversation.bucket = takeToken(conversation.bucket, perConversation, now);
  if (group) conversation.group = takeToken(conversation.group, perGroup as BucketLimit, now);
}

/** Whether nothing waits in the conversation and its buckets are as good as new: it can be forgotten. */
function asGoodAsNew(conversation: Conversation, now: number): boolean {
  const { perConversation, perGroup } = conversation.platform.limits;
  if (conversation.lane !== undefined || conversation.heldUntil > now) return false;
  if (conversation.bucket !== undefined && (perConversation === undefined || !bucketFull(conversation.bucket, perConversation, now))) return false;
  return conversation.group === undefined || (perGroup !== undefined && bucketFull(conversation.group, perGroup, now));
}

/** What an event's sends are, for their limits: to a group conversation or not, a reply to a person or proactive. */
export function sendClassOf(event: Pick<GatewayEvent, "channel"> & { readonly proactive?: boolean | undefined }): SendClass {
  return { group: isGroupChannel(event.channel), human: event.proactive !== true };
}
