// A rate-limited platform's conversations as `SendShaper` keeps them: each one's buckets and lane
// of waiting sends, and the decisions on those buckets (pure: time is passed in).
import type { Subscription } from "rxjs";
import type { OutboundMessage } from "../outboundMessage.js";
import type { PlatformRateLimits } from "./platformRateLimits.js";
import { bucketFull, earliestDeparture, latenessMarginOf, takeToken, widened, type BucketLimit, type BucketState } from "./tokenBucket.js";

/** The bucket that held a send: its conversation's (and group's), or the bot's. */
export type HoldingBucket = "conversation" | "bot";

/** A platform's limits as the shaper applies them, and its conversations. */
export interface Platform {
  readonly name: string;
  readonly limits: PlatformRateLimits;
  /** The per-bot limit as the shared bucket is asked for it (see `platformOf`), and the margin. */
  readonly shared: BucketLimit | undefined;
  readonly margin: number;
  readonly conversations: Map<string, Conversation>;
}

/** One conversation's buckets and lane (a chat's threads share them). */
export interface Conversation {
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
export interface Ticket {
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
  heldBy: HoldingBucket | undefined;
}

/**
 * A platform as applied here. The bot's limit is asked of the shared bucket with its window widened
 * by four times the margin (100 ms on a window of a second or more) — one for how late a send may
 * leave after its token's time, three for the sends of several workers taking paths of different
 * length to the platform (an edge's queue, another host) — so what arrives there keeps the limit.
 * The sustained rate is that much lower: 30 per 1.1 s for Telegram's 30 per second.
 */
export function platformOf(name: string, limits: PlatformRateLimits | undefined): Platform | undefined {
  if (limits === undefined) return undefined;
  const { perBot } = limits;
  const margin = perBot === undefined ? 0 : latenessMarginOf(perBot);
  return { name, limits, shared: perBot === undefined ? undefined : widened(perBot, 4 * margin), margin, conversations: new Map() };
}

/** The earliest time the conversation's buckets that count the send (and any hold on them) let it go. */
export function departureOf(conversation: Conversation, counted: boolean, group: boolean, now: number): number {
  let at = Math.max(now, conversation.heldUntil);
  if (!counted) return at;
  const { perConversation, perGroup } = conversation.platform.limits;
  if (perConversation !== undefined) at = Math.max(at, earliestDeparture(conversation.bucket, perConversation, now));
  if (group) at = Math.max(at, earliestDeparture(conversation.group, perGroup as BucketLimit, now));
  return at;
}

/** Takes the conversation's token (and the group's, `group`) at `now`. */
export function takeTokens(conversation: Conversation, group: boolean, now: number): void {
  const { perConversation, perGroup } = conversation.platform.limits;
  if (perConversation !== undefined) conversation.bucket = takeToken(conversation.bucket, perConversation, now);
  if (group) conversation.group = takeToken(conversation.group, perGroup as BucketLimit, now);
}

/** Whether nothing waits in the conversation and its buckets are as good as new: it can be forgotten. */
export function asGoodAsNew(conversation: Conversation, now: number): boolean {
  const { perConversation, perGroup } = conversation.platform.limits;
  if (conversation.lane !== undefined || conversation.heldUntil > now) return false;
  if (conversation.bucket !== undefined && (perConversation === undefined || !bucketFull(conversation.bucket, perConversation, now))) return false;
  return conversation.group === undefined || (perGroup !== undefined && bucketFull(conversation.group, perGroup, now));
}
