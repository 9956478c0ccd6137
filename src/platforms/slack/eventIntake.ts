import type { GatewayAttachment, GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { SlackConfig } from "../../config/sections/slack.js";
import type { Logger } from "../../log/logger.js";
import { BotTurns, type BotTurnVerdict } from "../botTurns.js";
import { ConversationOrder } from "../telegram/conversationOrder.js";
import type { DisplayNames } from "./displayNames.js";
import { ExpiringCache } from "./expiringCache.js";
import type { FileDownloads } from "./fileDownloads.js";
import { gateVerdict, type GateFact, type MessageFacts, type MessageGateConfig } from "./messageGate.js";
import { messageFiles, withinTextBudget } from "./messageFiles.js";
import { isPlainUserMessage } from "./plainUserMessage.js";
import type { SlackReplies } from "./slackReplies.js";
import { slackEventOf } from "./slackEvent.js";
import { mentionsBot, resolveSlackMentions } from "./slackMentions.js";
import { unescapeSlackText } from "./slackText.js";
import { botTurnKeyOf, isBotEvent, isDmChannel, readSlackEvent, replyThreadOf, SLACK, type SlackMessageEvent } from "./slackMessageEvent.js";
import type { ThreadLookups } from "./threadLookups.js";

/** Who the bot is, from `auth.test`: its user id (what mentions name) and its bot id. */
export interface BotIdentity {
  readonly userId: string;
  readonly botId: string;
}

export interface EventIntakeOptions {
  readonly config: SlackConfig;
  readonly replies: SlackReplies;
  readonly threads: ThreadLookups;
  readonly names: DisplayNames;
  readonly downloads: FileDownloads;
  /** `[stt]` transcribes audio; without it an audio file is not fetched, the agent gets a note, the message 🎤 (upstream). */
  readonly speechToText: boolean;
  /** The bot, once `auth.test` answered; the socket connects only after, so events never see it unknown. */
  readonly identity: () => BotIdentity | undefined;
  /** Where each accepted event goes (the port's `events`), in its conversation's order. */
  readonly emit: (event: GatewayEvent) => void;
  readonly logger: Logger;
  readonly now: () => number;
  /** The conversations' order, when shared with another intake (the taps'); else its own. */
  readonly order?: ConversationOrder;
}

/** Upstream's reaction on a voice message nobody can transcribe. */
export const NO_STT_REACTION = "🎤";
const NO_STT_STATUS = "skipped: speech-to-text is not configured ([stt])";

/** How long an event id is remembered, so a redelivery of an event already taken (an ack Slack lost) is not counted twice. */
const SEEN_EVENT_MS = 10 * 60_000;
const SEEN_EVENTS = 10_000;

/**
 * Events API payloads into broker events, upstream's way (§3.3–3.4): each payload read
 * (`readSlackEvent`), put through the gate (`gateVerdict`), whose every looked-up fact is fetched
 * here — the bot-turn count (in arrival order: counted before anything is awaited), a thread's
 * replies, the trusted bots — and then, when accepted, the sender's name and the files fetched
 * and the event emitted in its conversation's order. What the gate answers besides is done here
 * too: 🚫 on a denied person's message, the bot-turn warning posted in the thread. Nothing thrown
 * here escapes: a payload that fails is logged and dropped.
 */
export class EventIntake {
  readonly #options: EventIntakeOptions;
  readonly #gate: MessageGateConfig;
  readonly #turns: BotTurns;
  readonly #order: ConversationOrder;
  readonly #seen: ExpiringCache<true>;
  #closed = false;

  constructor(options: EventIntakeOptions) {
    this.#options = options;
    this.#order = options.order ?? new ConversationOrder();
    const { config } = options;
    this.#gate = { allow_bot_messages: config.allow_bot_messages, allow_user_messages: config.allow_user_messages, trustsSomeBots: config.trusted_bot_ids.length > 0 };
    this.#turns = new BotTurns({ maxBotTurns: config.max_bot_turns });
    this.#seen = new ExpiringCache({ ttlMs: SEEN_EVENT_MS, maxEntries: SEEN_EVENTS, now: options.now });
  }

  /** Takes one Events API payload (an envelope's `payload`). */
  take(payload: unknown): void {
    if (this.#closed) return;
    const event = readSlackEvent(payload);
    if (typeof event === "string") {
      this.#options.logger.debug({ reason: event }, "slack event skipped");
      return;
    }
    if (this.#seen.has(event.eventId)) {
      this.#options.logger.debug({ reason: "redelivered", event_id: event.eventId }, "slack event skipped");
      return;
    }
    this.#seen.set(event.eventId, true);
    const accepted = this.#accept(event).catch((err: unknown) => {
      this.#options.logger.warn({ reason: "intake_failed", event_id: event.eventId, error: err instanceof Error ? err.name : typeof err }, "slack event dropped");
      return undefined;
    });
    this.#order.after(`${event.channel}:${replyThreadOf(event)}`, accepted, (ready) => {
      if (ready !== undefined && !this.#closed) this.#options.emit(ready);
    });
  }

  /** Emits nothing more. */
  close(): void {
    this.#closed = true;
  }

  async #accept(event: SlackMessageEvent): Promise<GatewayEvent | undefined> {
    const { config, logger, threads } = this.#options;
    const identity = this.#options.identity();
    const botUserId = identity?.userId;
    const isBot = isBotEvent(event);
    const thread = replyThreadOf(event);
    const prompt = unescapeSlackText(resolveSlackMentions(event.text, botUserId));
    let facts: MessageFacts = {
      kind: event.type,
      subtype: event.subtype,
      inThread: event.threadTs !== "",
      isBot,
      // Its own: posted as the bot user, or (a legacy `bot_message` without a user) with its bot id.
      isOwn: isBot && identity !== undefined && (event.user === identity.userId || (event.botId !== "" && event.botId === identity.botId)),
      mentionsBot: mentionsBot(event.text, botUserId),
      isDm: isDmChannel(event.channel),
      complete: event.channel !== "" && event.ts !== "" && (event.user !== "" || event.botId !== ""),
      channelAllowed: config.allow_all_channels || config.allowed_channels.includes(event.channel),
      userAllowed: config.allow_all_users || config.allowed_users.includes(event.user),
      empty: prompt === "" && event.files.length === 0,
      otherBotKnown: threads.otherBotKnown(event.channel, thread),
    };
    for (;;) {
      const verdict = gateVerdict(facts, this.#gate);
      if (verdict.kind === "need") {
        facts = await this.#withFact(verdict.fact, event, facts, botUserId);
        continue;
      }
      if (verdict.kind === "drop") {
        logger.debug({ reason: verdict.reason, event_id: event.eventId, channel: event.channel }, "slack event skipped");
        if (verdict.warning !== undefined) await this.#post(event.channel, thread, verdict.warning);
        return undefined;
      }
      if (verdict.kind === "deny") {
        logger.info({ reason: verdict.reason, user_id: event.user, channel: event.channel }, "slack user not allowed; reacted 🚫");
        await this.#react(event, "🚫");
        return undefined;
      }
      break;
    }
    const sender = event.user !== "" ? await this.#options.names.of(event.user) : event.username !== "" ? event.username : event.botId;
    const accepted = slackEventOf(event, prompt, sender, await this.#attachments(event));
    // Upstream streams a thread's replies unless another bot is known there (§3.4 step 7).
    return threads.otherBotKnown(event.channel, thread) ? { ...accepted, other_bot_present: true } : accepted;
  }

  /**
   * `facts` with the one the gate asked for. The bot-turn count is taken before anything is awaited,
   * so within the call of `take`: bot turns are counted in arrival order.
   */
  async #withFact(fact: GateFact, event: SlackMessageEvent, facts: MessageFacts, botUserId: string | undefined): Promise<MessageFacts> {
    const { threads, config } = this.#options;
    switch (fact) {
      case "botTurn":
        return { ...facts, botTurn: this.#countTurn(event, facts) };
      case "botRun":
        return { ...facts, botRun: await threads.botRun(event.channel, event.threadTs) };
      case "trustedBot":
        // The bot's `bot_id` (B…), or its user id (U…), which Slack puts on an app's messages.
        return { ...facts, trustedBot: config.trusted_bot_ids.includes(event.botId) || (event.user !== "" && config.trusted_bot_ids.includes(event.user)) };
      case "participation":
        return { ...facts, participation: botUserId === undefined ? "failed" : await threads.participation(event.channel, event.threadTs, botUserId) };
    }
  }

  /** §3.3 steps 2–3: note another bot in the thread, count a bot's message, reset on a person's plain one. */
  #countTurn(event: SlackMessageEvent, facts: MessageFacts): BotTurnVerdict {
    const key = botTurnKeyOf(event);
    if (!facts.isBot) {
      if (isPlainUserMessage(event.subtype, event.text)) this.#turns.humanMessage(key);
      return { action: "continue" };
    }
    if (!facts.isOwn && facts.inThread) this.#options.threads.noteOtherBot(event.channel, event.threadTs);
    const verdict = this.#turns.classify(key);
    if (verdict.action === "warn-and-stop") {
      this.#options.logger.warn({ reason: "bot_turn_limit", limit: verdict.limit, turns: verdict.turns, channel: event.channel }, "slack bot turn limit reached");
    }
    return verdict;
  }

  async #attachments(event: SlackMessageEvent): Promise<GatewayAttachment[]> {
    const items = messageFiles(event.files);
    if (items.length === 0) return [];
    const withoutStt = !this.#options.speechToText && items.some((item) => item.kind === "download" && item.type === "audio");
    if (withoutStt) {
      this.#options.logger.warn({ reason: "stt_disabled", channel: event.channel }, "slack audio file not transcribed (no [stt])");
      await this.#react(event, NO_STT_REACTION);
    }
    const fetched = await Promise.all(
      items.map((item) => {
        if (item.kind === "rejected") return item.attachment;
        if (item.type === "audio" && !this.#options.speechToText) return { type: item.type, filename: item.filename, mime_type: item.mime_type, data: "", size: item.size, status: NO_STT_STATUS };
        return this.#options.downloads.attachment(item);
      }),
    );
    return withinTextBudget(fetched);
  }

  async #post(channel: string, thread: string, text: string): Promise<void> {
    await this.#options.replies.send({ reply_to: "", platform: SLACK, channel: { id: channel, thread_id: thread }, content: { type: "text", text } }).catch(() => undefined);
  }

  async #react(event: SlackMessageEvent, emoji: string): Promise<void> {
    await this.#options.replies.send({ reply_to: event.ts, platform: SLACK, channel: { id: event.channel }, content: { type: "text", text: emoji }, command: "add_reaction" }).catch(() => undefined);
  }
}
