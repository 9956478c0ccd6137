/** The gateway-path slash commands turnstream handles today (protocol §8). */
export type SlashCommand = "reset" | "cancel";

const COMMANDS: ReadonlyMap<string, SlashCommand> = new Map([
  ["/reset", "reset"],
  ["/cancel", "cancel"],
]);

/** The command `text` is, by exact match on the trimmed text (`/reset now` is a prompt, not a command). */
export function slashCommand(text: string): SlashCommand | undefined {
  return COMMANDS.get(text.trim());
}

export const RESET_REPLY = "🔄 Session reset. Start a new conversation!";
export const RESET_NO_SESSION_REPLY = "⚠️ No active session to reset.";
export const CANCEL_REPLY = "🛑 Cancel signal sent.";
/** turnstream's wording: upstream sends `session/cancel` without checking for a running turn. */
export const CANCEL_NO_TURN_REPLY = "⚠️ No active turn to cancel.";

/** What `/reset` did: whether a session existed and was reset, and how many buffered messages it dropped. */
export interface ResetOutcome {
  readonly sessionReset: boolean;
  readonly dropped: number;
}

/** The `/reset` reply for each outcome (§8). */
export function resetReply({ sessionReset, dropped }: ResetOutcome): string {
  if (dropped > 0) {
    const droppedText = `Dropped ${dropped} buffered message(s).`;
    return sessionReset
      ? `🔄 Session reset. ${droppedText} Start a new conversation!`
      : `🔄 ${droppedText} No active session to reset.`;
  }
  return sessionReset ? RESET_REPLY : RESET_NO_SESSION_REPLY;
}

export type CancelOutcome =
  | { readonly kind: "sent" }
  | { readonly kind: "no_turn" }
  /** `error` reaches the user: keep it short and free of internal detail. */
  | { readonly kind: "failed"; readonly error: string };

/** The `/cancel` reply for each outcome (§8). */
export function cancelReply(outcome: CancelOutcome): string {
  switch (outcome.kind) {
    case "sent":
      return CANCEL_REPLY;
    case "no_turn":
      return CANCEL_NO_TURN_REPLY;
    case "failed":
      return `⚠️ ${outcome.error}`;
  }
}
