import { MessageFlags, type APIMessageComponentButtonInteraction } from "@discordjs/core";
import { interactionChannelKind } from "./interactionChannel.js";
import type { InteractionIntakeOptions } from "./interactionIntakeOptions.js";
import { refusalOf } from "./sendErrorOf.js";
import { tapEvent } from "./tapEvent.js";
import { validTapHandle, type TapHandle } from "./tapHandle.js";
import { tapVerdict } from "./tapVerdict.js";

/** What a person the gates refuse sees, only them, after tapping. */
export const TAP_REFUSED_NOTICE = "⚠️ This bot does not take answers from you here.";

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * Taps on the broker's buttons (INTERACTION_CREATE, a message component of type button). Discord
 * shows "This interaction failed" unless the bot answers within 3 s, and the broker's answer may
 * take longer (it travels to the session's worker and back), so each tap is acknowledged at once
 * with DEFERRED_UPDATE_MESSAGE (type 6: the message stays as it is, nothing is posted); then it is
 * read (`tapVerdict`) and handed on as an event, whose `tap.id` lets any edge send the tapper a
 * follow-up later (`answer_tap`). A tap the gates refuse gets an ephemeral notice instead; a
 * malformed one is dropped with its reason.
 */
export class TapIntake {
  readonly #options: InteractionIntakeOptions;

  constructor(options: InteractionIntakeOptions) {
    this.#options = options;
  }

  async take(interaction: APIMessageComponentButtonInteraction): Promise<void> {
    const { api, logger, gates, channels } = this.#options;
    const handle = { applicationId: interaction.application_id as unknown, token: interaction.token as unknown };
    const channelId = idOrEmpty(interaction.channel?.id ?? interaction.channel_id);
    const messageId = idOrEmpty(interaction.message?.id);
    if (typeof interaction.id !== "string" || !SNOWFLAKE.test(interaction.id) || !validTapHandle(handle)) {
      logger.info({ reason: "bad_interaction", channelId, messageId }, "discord tap dropped");
      return;
    }
    try {
      await api.interactions.deferMessageUpdate(interaction.id, handle.token);
    } catch (err) {
      // Still taken: the person's choice stands even if Discord shows them the tap failed.
      logger.warn({ reason: "interaction_reply_failed", ...refusalOf(err) }, "discord could not answer an interaction");
    }
    const user = interaction.member?.user ?? interaction.user;
    const verdict = tapVerdict(
      {
        customId: interaction.data?.custom_id,
        messageId: interaction.message?.id,
        user,
        nick: interaction.member?.nick,
        channel: await interactionChannelKind(interaction, channels),
        botId: this.#options.botId() ?? "",
      },
      gates,
    );
    if (verdict.kind === "accept") {
      this.#options.emit(tapEvent(interaction.id, handle, verdict));
      return;
    }
    logger.info({ reason: verdict.reason, channelId, messageId, userId: idOrEmpty(user?.id) }, "discord tap dropped");
    if (verdict.refused) await this.#tell(handle, TAP_REFUSED_NOTICE);
  }

  async #tell(handle: TapHandle, text: string): Promise<void> {
    try {
      await this.#options.api.interactions.followUp(handle.applicationId, handle.token, { content: text, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } });
    } catch (err) {
      this.#options.logger.warn({ reason: "interaction_reply_failed", ...refusalOf(err) }, "discord could not answer an interaction");
    }
  }
}

/** An id from the gateway as a log field: a snowflake, else `""` (untrusted text is not logged). */
function idOrEmpty(value: unknown): string {
  return typeof value === "string" && SNOWFLAKE.test(value) ? value : "";
}
