import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentFileOutcome, FileRefusal, ReplyBubblesOutcome } from "../../operators/delivery/agentEvent.js";
import { formatAttachmentSize } from "../../operators/ingress/prompt/attachmentBlock.js";

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

/**
 * What became of a `send_file` call's file. Every path that may not be sent — outside the
 * allowed directories, a symlink, missing, not a file — gets the same words: the tool tells the
 * model nothing about files it may not send.
 */
export function fileResult(outcome: AgentFileOutcome): CallToolResult {
  if (outcome.kind === "accepted") {
    return { content: [{ type: "text", text: `Accepted ${outcome.filename} (${formatAttachmentSize(outcome.size)}): it is sent with your reply.` }] };
  }
  return errorResult(FILE_REFUSALS[outcome.reason](outcome.maxBytes));
}

const FILE_REFUSALS: Record<FileRefusal, (maxBytes: number | undefined) => string> = {
  not_found: () => "No such file may be sent. Give a path to a regular file inside your working directory. Nothing was sent.",
  too_big: (maxBytes) => `The file is over this chat's size limit${maxBytes === undefined ? "" : ` of ${formatAttachmentSize(maxBytes)}`}; the person is told its name and size. Nothing else was sent.`,
  too_many: () => "This turn has sent as many files as it may; nothing was sent.",
  invalid: () => "The data is not valid base64; nothing was sent.",
  store_failed: () => "The file could not be handed on for sending (the broker's file store failed); nothing was sent.",
  turn_ended: () => "The turn ended (or was cancelled) before the file could be sent; nothing was sent.",
};

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}
