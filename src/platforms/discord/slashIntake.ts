import { MessageFlags, type APIChatInputApplicationCommandInteraction } from "@discordjs/core";
import { isDeniedUser } from "./deniedUser.js";
import { channelAllowed } from "./detectThread.js";
import { conversationOf, interactionChannelKind } from "./interactionChannel.js";
import type { InteractionIntakeOptions } from "./interactionIntakeOptions.js";
import { refusalOf } from "./sendErrorOf.js";
import { SLASH_COMMANDS, slashAcknowledgement, slashEvent, slashReading } from "./slashCommands.js";

/**
 * `/cancel` and `/reset` (§2.9): registered on every READY, globally and in each guild (a guild's
 * set shows at once, the global one may take a while), as upstream does. A command used in a
 * conversation — a thread, or a DM with `allow_dm` — by someone the gates let through becomes an
 * event whose text is the command, which the broker's slash-command stage answers in the
 * conversation; the interaction itself is answered at once, ephemeral, so Discord does not show
 * "interaction failed" (it allows 3 s).
 */
export class SlashIntake {
  readonly #options: InteractionIntakeOptions;

  constructor(options: InteractionIntakeOptions) {
    this.#options = options;
  }

  async register(applicationId: string, guildIds: readonly string[]): Promise<void> {
    const { api, logger } = this.#options;
    try {
      await api.applicationCommands.bulkOverwriteGlobalCommands(applicationId, SLASH_COMMANDS);
      logger.info({ commands: SLASH_COMMANDS.length }, "discord registered global slash commands");
    } catch (err) {
      logger.warn({ reason: "register_failed", ...refusalOf(err) }, "discord failed to register global slash commands");
    }
    for (const guildId of guildIds) {
      try {
        await api.applicationCommands.bulkOverwriteGuildCommands(applicationId, guildId, SLASH_COMMANDS);
        logger.debug({ guildId }, "discord registered guild slash commands");
      } catch (err) {
        logger.warn({ reason: "register_failed", guildId, ...refusalOf(err) }, "discord failed to register guild slash commands");
      }
    }
  }

  async take(interaction: APIChatInputApplicationCommandInteraction): Promise<void> {
    const { api, logger, gates, channels } = this.#options;
    const reading = slashReading(interaction.data.name);
    const channelId = interaction.channel?.id ?? interaction.channel_id ?? "";
    const kind = await interactionChannelKind(interaction, channels);
    const user = interaction.member?.user ?? interaction.user;
    const botId = this.#options.botId() ?? "";
    const allowed = kind.kind === "dm" ? gates.allowDm : channelAllowed(kind, { allowAll: gates.allowAllChannels, allowedChannels: gates.allowedChannels }, botId);
    const permitted = allowed && user !== undefined && !isDeniedUser({ id: user.id, isBot: user.bot === true }, { allowAll: gates.allowAllUsers, allowedUsers: gates.allowedUsers });
    const conversation = conversationOf(kind);
    const where = !permitted ? "not_allowed" : conversation === undefined ? "not_a_conversation" : "conversation";
    try {
      await api.interactions.reply(interaction.id, interaction.token, { content: slashAcknowledgement(reading, where), flags: MessageFlags.Ephemeral });
    } catch (err) {
      logger.warn({ reason: "interaction_reply_failed", ...refusalOf(err) }, "discord could not answer an interaction");
    }
    if (reading.kind !== "command" || conversation === undefined || !permitted) {
      logger.debug({ reason: reading.kind === "unknown" ? "unknown_command" : where, command: interaction.data.name, channelId }, "discord slash command not taken");
      return;
    }
    this.#options.emit(slashEvent(interaction, reading.text, conversation));
  }
}
