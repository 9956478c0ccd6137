import { Observable, type SchedulerLike, type Subscription } from "rxjs";
import type { OutboundMessage } from "../outboundMessage.js";
import { departureOf, takeTokens, type HoldingBucket, type Ticket } from "./conversationBuckets.js";
import { countsSend, type PlatformRateLimits } from "./platformRateLimits.js";
import type { RateBuckets, Take } from "./rateBuckets.js";
import { RememberedConversations } from "./rememberedConversations.js";
import type { SendClass } from "./sendClass.js";
import { sendKind } from "./sendKind.js";
import { heldUntil, type BucketLimit } from "./tokenBucket.js";

/** A send a bucket held: how long it waited in all, and which bucket held it last. */
export interface ShapedWait {
  readonly platform: string;
  readonly waitedMs: number;
  readonly bucket: HoldingBucket;
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
  readonly #conversations: RememberedConversations;

  constructor(options: SendShaperOptions) {
    this.#options = options;
    this.#conversations = new RememberedConversations(options.limits, options.scheduler, options.maxKeys ?? 10_000);
  }

  /** `send()`'s emissions, subscribed once `message` may go; at once when no limit counts it. */
  shape<T>(message: OutboundMessage, sendClass: SendClass, send: () => Observable<T>): Observable<T> {
    const platform = this.#conversations.platform(message.platform);
    if (platform === undefined || !countsSend(platform.limits, sendKind(message.command))) return send();
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
    const platform = this.#conversations.platform(message.platform);
    const kind = sendKind(message.command);
    if (platform === undefined || !countsSend(platform.limits, kind)) {
      go();
      return noop;
    }
    const { limits } = platform;
    const counted = limits.conversationCounts.has(kind);
    const botCounted = platform.shared !== undefined && limits.botCounts.has(kind);
    const group = sendClass.group && limits.perGroup !== undefined;
    const conversation = this.#conversations.conversation(platform, message.channel.id);
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
    const platform = this.#conversations.platform(message.platform);
    if (platform === undefined) return;
    const until = this.#options.scheduler.now() + waitMs;
    const conversation = this.#conversations.conversation(platform, message.channel.id);
    const limit = platform.limits.perConversation;
    // A conversation without a limit of its own still waits, until then.
    if (limit === undefined) conversation.heldUntil = Math.max(conversation.heldUntil, until);
    else conversation.bucket = heldUntil(conversation.bucket, limit, until);
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
}

const noop = (): void => undefined;
