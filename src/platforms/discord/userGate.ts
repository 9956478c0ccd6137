import type { UserMessageMode } from "../../config/sections/chatGates.js";

/** What the user-message gate (§2.3 step 9) knows about a message. */
export interface UserGateInput {
  readonly mode: UserMessageMode;
  /** The bot (or an allowed role) was mentioned; a DM counts as mentioned. */
  readonly mentioned: boolean;
  /** The message is in an allowed thread. */
  readonly inThread: boolean;
  /** This bot owns the thread or posted in it. */
  readonly involved: boolean;
  /** Another bot is known in the thread. */
  readonly otherBot: boolean;
}

export type UserGateReason = "not_mentioned" | "not_in_thread" | "not_involved" | "multibot_thread";

/**
 * Whether an unmentioned message in a thread starts a turn (OpenAB's user-message gate): a
 * mentioned message (or a DM) always passes; `mentions` needs a mention; `involved` needs an
 * allowed thread the bot takes part in; `multibot-mentions` as `involved`, but not where another
 * bot talks too. Returns why not, or undefined to pass.
 */
export function userGateReason(input: UserGateInput): UserGateReason | undefined {
  if (input.mentioned) return undefined;
  if (input.mode === "mentions") return "not_mentioned";
  if (!input.inThread) return "not_in_thread";
  if (!input.involved) return "not_involved";
  if (input.mode === "multibot-mentions" && input.otherBot) return "multibot_thread";
  return undefined;
}
