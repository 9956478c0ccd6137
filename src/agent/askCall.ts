import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../log/logger.js";
import { ASK_TOOL_NAME, askInputSchema, type AskInput } from "./askTool.js";
import type { TurnstreamServer } from "./turnstreamServer.js";

/**
 * How long an `ask` may go without a word from the server (its answer, or a progress
 * notification: the broker sends one every 15 s while the person has not answered yet).
 */
export const ASK_IDLE_TIMEOUT_MS = 60_000;

export interface ForwardAskOptions {
  readonly server: TurnstreamServer;
  /** The turn's: `session/cancel` aborts the call (the SDK tells the server) and the rejection is rethrown. */
  readonly signal: AbortSignal;
  /** The whole call's bound (the SDK's `maxTotalTimeout`); keep it above the broker's `ask_timeout_secs`. */
  readonly totalTimeoutMs: number;
  /** Silence allowed between progress notifications; default `ASK_IDLE_TIMEOUT_MS`. */
  readonly idleTimeoutMs?: number;
  readonly sessionId: string;
  readonly logger: Logger;
}

/** Tells the model what a valid input looks like, without echoing its own. */
const INPUT_RULES =
  "ask needs {questions: [{header (1-24 chars), question (1-300 chars), options: [{label (1-40 chars), description (up to 120 chars)}] (2-3 of them), multi_select (boolean)}] (1-5 of them)}, no other fields";

/** Longest text of a server's answer handed to the model. */
const MAX_RESULT_CHARS = 8_000;

/**
 * Runs the model's `ask` call through the session's `turnstream` MCP server, which puts the
 * questions to the person in the chat and answers once they did, the broker's timeout passed or
 * the turn was cancelled. Returns what the model is told as the tool result: the server's
 * structured answers as JSON (`{answers: [...]}`, each answered or marked unanswered), or in a
 * line why nothing was asked. A bad input goes back to the model without a call, as a rejected
 * `reply` does. Throws only when the turn was cancelled.
 */
export async function forwardAsk(argumentsText: string, options: ForwardAskOptions): Promise<string> {
  const { server, signal, sessionId, logger } = options;
  const input = readAskArguments(argumentsText);
  if (typeof input === "string") {
    logger.warn({ sessionId, reason: "malformed", error: input }, "ask tool input rejected");
    return `not asked: ${input}. ${INPUT_RULES}. Call ${ASK_TOOL_NAME} again with a corrected input.`;
  }
  let result: CallToolResult;
  try {
    result = await server.callTool(ASK_TOOL_NAME, input, {
      signal,
      // A progress handler makes the SDK send a progress token: the broker then reports while the person thinks.
      onprogress: () => undefined,
      resetTimeoutOnProgress: true,
      timeout: options.idleTimeoutMs ?? ASK_IDLE_TIMEOUT_MS,
      maxTotalTimeout: options.totalTimeoutMs,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
    logger.warn({ sessionId, reason: timedOut ? "timeout" : "unreachable", error: err instanceof Error ? err.message : String(err) }, "ask tool call failed");
    return timedOut
      ? "no answer: the chat gave no answer in time, so nothing was chosen. Go on without it, or tell the person what you need."
      : "not asked: the chat could not be reached. Go on without the answer, or tell the person what you need.";
  }
  const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n").slice(0, MAX_RESULT_CHARS);
  if (result.isError === true) {
    logger.warn({ sessionId, reason: "refused" }, "ask tool call failed");
    return `not asked: ${text}`;
  }
  return result.structuredContent === undefined ? text : JSON.stringify(result.structuredContent).slice(0, MAX_RESULT_CHARS);
}

/** The call's arguments as a checked `ask` input, or a short line saying what is wrong (fields and counts, never the model's text). */
export function readAskArguments(argumentsText: string): AskInput | string {
  let json: unknown;
  try {
    json = JSON.parse(argumentsText);
  } catch {
    return "the tool arguments are not valid JSON";
  }
  const parsed = askInputSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  return parsed.error.issues
    .slice(0, 3)
    // Cut: an unknown key's name, which a message may quote, is the model's.
    .map((issue) => `${issue.path.length === 0 ? "input" : issue.path.join(".")}: ${issue.message}`.slice(0, 160))
    .join("; ");
}
