import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ReplyBubblesOutcome } from "../../operators/delivery/agentEvent.js";

/**
 * Why a `reply` call was refused, as logged (`reason`). The model is told in words; nothing is
 * delivered for any of them.
 */
export type ReplyRefusal =
  /** The server's secret binds it to no live session (revoked, or never issued). */
  | "reply_tool_unknown_secret"
  /** No turn of the bound session runs: between turns, or after the turn settled. */
  | "reply_tool_no_turn"
  /** Structured mode: the turn's reply was already given. */
  | "reply_tool_already_replied"
  /** The input could not become a reply (over the cap, too long, empty, malformed). */
  | "reply_tool_bad_input";

const REFUSALS: Record<Exclude<ReplyRefusal, "reply_tool_bad_input">, string> = {
  reply_tool_unknown_secret: "This reply tool is not connected to a conversation; nothing was sent.",
  reply_tool_no_turn: "No turn of this conversation is running (it may have ended already); nothing was sent.",
  reply_tool_already_replied: "You already replied in this turn; that reply stands and nothing more was sent.",
};

/** A refused call: an MCP tool error that tells the model why, and that nothing was sent. */
export function refusedResult(reason: Exclude<ReplyRefusal, "reply_tool_bad_input">): CallToolResult {
  return errorResult(REFUSALS[reason]);
}

/** A call whose input was unusable: the message says what to fix (it names counts and fields, never the model's text). */
export function badInputResult(message: string): CallToolResult {
  return errorResult(`${message}. Nothing was sent.`);
}

/** Structured mode: the call is the turn's reply, delivered once the turn ends. */
export function recordedResult(messages: number, silent: boolean): CallToolResult {
  const text = silent
    ? "Recorded: nothing will be sent. End your turn now."
    : `Recorded: ${messages === 1 ? "1 message" : `${messages} messages`} will be sent when your turn ends. End your turn now, without repeating them as text.`;
  return { content: [{ type: "text", text }] };
}

/** Sequential mode: what the call's messages came to, once their sends settled. */
export function deliveredResult({ delivered, dropped, failed }: ReplyBubblesOutcome, messages: number): CallToolResult {
  const sent = `${delivered} of ${messages}`;
  if (failed) return errorResult(`Sending failed after ${sent} messages; the rest were not sent.`);
  // Not an error: trying again would be capped too.
  if (dropped > 0) return { content: [{ type: "text", text: `Capped after ${sent} messages: this turn's message limit is reached, so the rest were not sent. Do not call reply again this turn.` }] };
  if (delivered < messages) return errorResult(`The turn ended after ${sent} messages were sent; the rest were not.`);
  return { content: [{ type: "text", text: `Delivered ${messages === 1 ? "1 message" : `${messages} messages`}.` }] };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}
