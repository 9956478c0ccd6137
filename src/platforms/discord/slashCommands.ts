import type { APIChatInputApplicationCommandInteraction, RESTPostAPIChatInputApplicationCommandsJSONBody } from "@discordjs/core";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Conversation } from "./messageEvent.js";
import { DISCORD, eventChannel } from "./messageEvent.js";

/**
 * The slash commands registered (§2.9), those the broker has an equivalent of: `/cancel` and
 * `/reset`, with upstream's descriptions. Upstream's `/models`, `/agents` and `/cancel-all` are not
 * registered: turnstream's broker has no model or agent switching and no per-lane buffers.
 */
export const SLASH_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  { name: "cancel", description: "Cancel the current operation" },
  { name: "reset", description: "Reset the conversation session" },
];

const BROKER_TEXT: Readonly<Record<string, string>> = { cancel: "/cancel", reset: "/reset" };

/** What an interaction asks, as the broker reads it: its command text, or why it is not one. */
export type SlashReading = { readonly kind: "command"; readonly text: "/cancel" | "/reset" } | { readonly kind: "unknown"; readonly name: string };

export function slashReading(name: string): SlashReading {
  const text = BROKER_TEXT[name];
  return text === undefined ? { kind: "unknown", name } : { kind: "command", text: text as "/cancel" | "/reset" };
}

/** An interaction's event id: its own snowflake, apart from message ids. */
export function interactionEventId(interactionId: string): string {
  return `dci${interactionId}`;
}

/**
 * A slash command as the broker's event: the command's text (`/cancel`, `/reset`) in the
 * conversation it was used in (a thread: its parent and itself; a DM), from the user who used it.
 */
export function slashEvent(interaction: APIChatInputApplicationCommandInteraction, text: "/cancel" | "/reset", conversation: Conversation): GatewayEvent {
  const user = interaction.member?.user ?? interaction.user;
  return {
    schema: "openab.gateway.event.v1",
    event_id: interactionEventId(interaction.id),
    timestamp: snowflakeTime(interaction.id),
    platform: DISCORD,
    channel: eventChannel(conversation),
    sender: {
      id: user?.id ?? "",
      name: user?.username ?? "unknown",
      display_name: interaction.member?.nick ?? user?.global_name ?? user?.username ?? "Unknown",
      is_bot: user?.bot === true,
    },
    content: { type: "text", text },
    mentions: [],
    message_id: "",
    proactive: false,
  };
}

/** The ephemeral answer to the interaction itself (the broker's reply comes as a message in the conversation). */
export function slashAcknowledgement(reading: SlashReading, where: "conversation" | "not_a_conversation" | "not_allowed"): string {
  if (reading.kind === "unknown") return `⚠️ /${reading.name} is not available here.`;
  if (where === "not_allowed") return "⚠️ This bot does not take commands from you here.";
  if (where === "not_a_conversation") return "⚠️ Use this command inside a conversation thread.";
  return reading.text === "/cancel" ? "🛑 Cancel requested." : "🔄 Reset requested.";
}

/** Discord's epoch (2015-01-01), the origin of a snowflake's millisecond count. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** When a snowflake was made, ISO-8601: the same on every delivery; `""` for an id that is not one. */
export function snowflakeTime(id: string): string {
  if (!/^\d{1,20}$/.test(id)) return "";
  return new Date(Number((BigInt(id) >> 22n) + DISCORD_EPOCH_MS)).toISOString();
}
