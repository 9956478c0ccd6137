import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { SlackConfig } from "../../config/sections/slack.js";
import type { Logger } from "../../log/logger.js";
import type { ConversationOrder } from "../telegram/conversationOrder.js";
import { readBlockActions, type BlockAction } from "./blockActions.js";
import type { DisplayNames } from "./displayNames.js";
import { slackTapEventOf } from "./slackTapEvent.js";

export interface TapIntakeOptions {
  readonly config: Pick<SlackConfig, "allow_all_channels" | "allowed_channels" | "allow_all_users" | "allowed_users">;
  readonly names: DisplayNames;
  /** Shared with the message intake, so a tap keeps its place among its conversation's messages. */
  readonly order: ConversationOrder;
  /** Where each accepted tap goes (the port's `events`). */
  readonly emit: (event: GatewayEvent) => void;
  readonly logger: Logger;
}

/**
 * Socket Mode `interactive` payloads (acknowledged already, at once) into tap events: a
 * `block_actions` tap on a button of a message (`readBlockActions`), through the adapter's own
 * gates — the channel allow-list and the person allow-list, silently here (a tap is no message to
 * put 🚫 on) — then the tapper's name looked up as a message's sender's is, and the event handed on
 * in its conversation's order. Whether the tapper may answer is the worker's to decide. A payload
 * that is no tap of ours is logged with why and dropped; nothing thrown here escapes.
 */
export class TapIntake {
  readonly #options: TapIntakeOptions;
  #closed = false;

  constructor(options: TapIntakeOptions) {
    this.#options = options;
  }

  /** Takes one `interactive` envelope's payload. */
  take(payload: unknown): void {
    if (this.#closed) return;
    const { logger, config, order } = this.#options;
    const action = readBlockActions(payload);
    if (typeof action === "string") {
      const fields = { reason: action, type: typeOf(payload) };
      if (action === "not_block_actions" || action === "not_a_message" || action === "ephemeral") logger.debug(fields, "slack tap skipped");
      else logger.warn(fields, "slack tap dropped");
      return;
    }
    if (!config.allow_all_channels && !config.allowed_channels.includes(action.channel)) {
      logger.debug({ reason: "channel_not_allowed", channel: action.channel }, "slack tap skipped");
      return;
    }
    if (!config.allow_all_users && !config.allowed_users.includes(action.user)) {
      logger.debug({ reason: "user_not_allowed", user_id: action.user, channel: action.channel }, "slack tap skipped");
      return;
    }
    order.after(`${action.channel}:${action.threadTs !== "" ? action.threadTs : action.messageTs}`, this.#event(action), (ready) => {
      if (!this.#closed) this.#options.emit(ready);
    });
  }

  /** Emits nothing more. */
  close(): void {
    this.#closed = true;
  }

  async #event(action: BlockAction): Promise<GatewayEvent> {
    return slackTapEventOf(action, await this.#options.names.of(action.user));
  }
}

/** The payload's `type` for a log line, bounded: Slack's interaction types are short words. */
function typeOf(payload: unknown): string {
  const type = typeof payload === "object" && payload !== null ? (payload as { type?: unknown }).type : undefined;
  return typeof type === "string" && /^[a-z_]{1,40}$/.test(type) ? type : "unknown";
}
