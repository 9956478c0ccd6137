import type { API, GatewayMessageCreateDispatchData } from "@discordjs/core";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../../log/logger.js";
import type { BotTurns } from "../botTurns.js";
import type { AttachmentDownloads } from "./attachmentDownloads.js";
import { planAttachments } from "./attachmentPlan.js";
import type { ChannelDirectory } from "./channelDirectory.js";
import type { ExpiringCache } from "./expiringCache.js";
import { messageEvent, type Conversation } from "./messageEvent.js";
import { messageVerdict, resetsBotTurns, type MessageFacts, type MessageGates, type ReplyPlace } from "./messageVerdict.js";
import type { ParticipationCheck } from "./participationCheck.js";
import { refusalOf } from "./sendErrorOf.js";
import { SerialByKey } from "./serialByKey.js";
import { ThreadOpenError, openThread } from "./threadOpener.js";
import { shortenThreadName } from "../../../operators/ingress/prompt/threadName.js";

/** The reaction a human outside `allowed_users` gets on the message that addressed the bot. */
export const DENIED_REACTION = "🚫";
/** The reaction on a message whose voice or audio file no `[stt]` can transcribe (upstream's). */
export const NO_STT_REACTION = "🎤";

export interface MessageIntakeOptions {
  /** The port's reader API (retries 429 and 5xx itself): lookups, threads, the 🚫 and warning posts. */
  readonly api: API;
  readonly logger: Logger;
  readonly gates: MessageGates;
  readonly botTurns: BotTurns;
  readonly multibot: ExpiringCache<true>;
  readonly participation: ParticipationCheck;
  readonly channels: ChannelDirectory;
  readonly downloads: AttachmentDownloads;
  /** `[stt]` transcribes audio: without it an audio attachment gets 🎤 on its message (the agent gets a note). */
  readonly speechToText: boolean;
  /** The bot's user id once known (READY); messages before it are not read. */
  readonly botId: () => string | undefined;
  readonly emit: (event: GatewayEvent) => void;
}

/**
 * MESSAGE_CREATE into events, in each channel's order (`SerialByKey`): the multibot note and the
 * bot-turn count (§2.3 steps 1–2, every message of every channel the bot sees), the channel's
 * kind, then `messageVerdict` (with the participation check when it asks), and what the verdict
 * says: nothing (logged at debug with its reason), the turn-limit warning, 🚫, or the thread
 * opened and the event emitted with its attachments.
 */
export class MessageIntake {
  readonly #options: MessageIntakeOptions;
  readonly #serial = new SerialByKey();
  #closed = false;

  constructor(options: MessageIntakeOptions) {
    this.#options = options;
  }

  take(message: GatewayMessageCreateDispatchData): Promise<void> {
    return this.#serial.run(message.channel_id, () =>
      this.#handle(message).catch((err: unknown) => {
        this.#options.logger.warn({ reason: "intake_failed", channelId: message.channel_id, messageId: message.id, error: (err as Error).message }, "discord message could not be handled");
      }),
    );
  }

  /** Emits nothing more; what is under way finishes quietly. */
  close(): void {
    this.#closed = true;
  }

  idle(): Promise<void> {
    return this.#serial.idle();
  }

  async #handle(message: GatewayMessageCreateDispatchData): Promise<void> {
    const { logger, botTurns, multibot, channels, participation, gates } = this.#options;
    const botId = this.#options.botId();
    if (botId === undefined || this.#closed) return;
    const author = message.author;
    const authorIsBot = author.bot === true;
    const key = message.channel_id;
    if (authorIsBot && author.id !== botId) multibot.set(key, true);
    const botTurn = authorIsBot ? botTurns.classify(key) : undefined;
    if (!authorIsBot && resetsBotTurns({ authorIsBot, type: message.type, content: message.content })) botTurns.humanMessage(key);
    if (author.id === botId && botTurn?.action === "continue") return;
    const channel = await channels.kindOf(key, message.guild_id === undefined);
    let facts: MessageFacts = {
      botId,
      authorId: author.id,
      authorIsBot,
      content: message.content,
      attachmentCount: message.attachments.length,
      mentionedUserIds: message.mentions.map((user) => user.id),
      mentionedRoleIds: message.mention_roles,
      channel,
      otherBotKnown: multibot.has(key),
      ...(botTurn === undefined ? {} : { botTurn }),
    };
    let verdict = messageVerdict(facts, gates);
    if (verdict.kind === "needs-participation") {
      facts = { ...facts, participation: await participation.check(key, botId) };
      verdict = messageVerdict(facts, gates);
    }
    const where = { channelId: key, messageId: message.id };
    switch (verdict.kind) {
      case "needs-participation":
        return;
      case "drop":
        logger.debug({ reason: verdict.reason, ...where }, "discord message skipped");
        return;
      case "turn-limit":
        if (verdict.limit === "hard") logger.warn({ reason: "hard_bot_turn_limit", ...where, posted: verdict.post }, "discord hard bot turn limit reached");
        else logger.info({ reason: "soft_bot_turn_limit", ...where, posted: verdict.post }, "discord soft bot turn limit reached");
        if (verdict.post) await this.#quietly(() => this.#options.api.channels.createMessage(key, { content: verdict.text }), "turn_limit_warning");
        return;
      case "deny":
        logger.info({ reason: verdict.reason, userId: author.id, ...where }, "discord denied user, ignoring");
        await this.#quietly(() => this.#options.api.channels.addMessageReaction(key, message.id, DENIED_REACTION), "denied_reaction");
        return;
      case "accept": {
        const conversation = await this.#conversation(verdict.place, message, verdict.prompt);
        if (conversation === undefined) return;
        const attachments = await this.#options.downloads.all(planAttachments(message.attachments));
        if (!this.#options.speechToText && attachments.some((attachment) => attachment.type === "audio")) {
          logger.warn({ reason: "stt_disabled", ...where }, "discord audio attachment not transcribed (no [stt])");
          await this.#quietly(() => this.#options.api.channels.addMessageReaction(key, message.id, NO_STT_REACTION), "no_stt_reaction");
        }
        if (this.#closed) return;
        const event = messageEvent(message, verdict.prompt, conversation, attachments);
        // Upstream streams a thread's replies unless another bot is known there (§2.3 step 14).
        this.#options.emit(verdict.otherBotPresent ? { ...event, other_bot_present: true } : event);
        return;
      }
    }
  }

  /** Where the reply goes: the DM, the thread the message is in, or a thread opened from it (none when that fails). */
  async #conversation(place: ReplyPlace, message: GatewayMessageCreateDispatchData, prompt: string): Promise<Conversation | undefined> {
    if (place.kind === "dm") return { kind: "dm", channelId: place.channelId };
    if (place.kind === "thread") return { kind: "thread", parentId: place.parentId, threadId: place.threadId };
    const name = threadName(prompt, message);
    try {
      const threadId = await openThread(this.#options.api, this.#options.logger, { channelId: place.parentId, messageId: message.id, name });
      this.#options.participation.noteInvolved(threadId);
      return { kind: "thread", parentId: place.parentId, threadId };
    } catch (err) {
      const reason = err instanceof ThreadOpenError ? err.reason : "create_failed";
      this.#options.logger.error({ reason, channelId: place.parentId, messageId: message.id, ...refusalOf((err as Error).cause ?? err) }, "discord thread could not be opened; message dropped");
      return undefined;
    }
  }

  async #quietly(call: () => Promise<unknown>, what: string): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.#options.logger.warn({ reason: "platform_refused", call: what, ...refusalOf(err) }, "discord refused a notice");
    }
  }
}

/**
 * The thread's name: `shortenThreadName(prompt)`; a message with attachments and no text gets its
 * first file's name instead (upstream asks Discord for an empty name, is refused and drops the
 * message), and `…` when there is nothing at all, since Discord needs 1–100 characters.
 */
export function threadName(prompt: string, message: Pick<GatewayMessageCreateDispatchData, "attachments">): string {
  const name = shortenThreadName(prompt);
  if (name !== "") return name;
  const file = message.attachments[0]?.filename;
  return file === undefined || file === "" ? "…" : shortenThreadName(file);
}
