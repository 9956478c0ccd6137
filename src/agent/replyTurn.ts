import type { Logger } from "../log/logger.js";
import { ASK_TOOL_NAME, askTool } from "./askTool.js";
import { BubbleSink, bubbleToolResult, type SendNotification } from "./bubbleSink.js";
import type { ChatMessage, ChatModel, ToolCall } from "./chatCompletions.js";
import { closingAction } from "./closingText.js";
import { ReplyInputError } from "./errors.js";
import { LOOKUP_TOOL_NAME, lookupTool, runLookup, type LookupTable } from "./lookupTool.js";
import { renderEnvelope, UNKNOWN_NEXT_WARNING } from "./renderEnvelope.js";
import { bubblesFromToolInput, parseReplyArguments, REPLY_TOOL_NAME, replyTool, type ReplyMode } from "./replyTool.js";

export interface ReplyTurnOptions {
  readonly mode: ReplyMode;
  readonly maxBubbles: number;
  /** Envelope mode: characters per message, as the broker's `max_bubble_chars`; 0: no limit. */
  readonly maxBubbleChars: number;
  /** Model requests per turn before giving up with `max_turn_requests`. */
  readonly maxSteps: number;
  /** The envelope schema (envelope mode). */
  readonly schema: string;
  /** The broker's `[silent] token`, for a sequential turn that says nothing; empty disables. */
  readonly silentToken: string;
  readonly lookupTable: LookupTable;
  /**
   * Runs an `ask` call (its arguments as the model wrote them) and returns the tool result; set
   * when the session's `turnstream` MCP server lists `ask`, and only then is the tool offered.
   */
  readonly ask?: (argumentsText: string) => Promise<string>;
  readonly model: ChatModel;
  readonly sessionId: string;
  /** Sends a notification to the ACP client. */
  readonly send: SendNotification;
  /** Aborted by `session/cancel`. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
}

export type TurnStopReason = "end_turn" | "cancelled" | "max_turn_requests";

/** A tool call's outcome: its result for the model, and whether it ended the turn. */
interface CallOutcome {
  readonly result: string;
  readonly ends: boolean;
}

/**
 * Runs one prompt turn: asks the model (with `context`, then `transcript`, which starts with the
 * user's message and grows as the turn goes), runs the tools it calls and loops until the turn
 * ends. Envelope mode: the first valid `reply` becomes the turn's envelope, sent as its text, and
 * ends the turn. Sequential mode: every `reply` goes out at once through a `BubbleSink` and the
 * model continues until it stops calling tools. A rejected `reply` goes back to the model as the
 * tool result, so it can correct itself. Model failures throw `ModelRequestError`.
 */
export async function runReplyTurn(context: readonly ChatMessage[], transcript: ChatMessage[], options: ReplyTurnOptions): Promise<TurnStopReason> {
  const { mode, maxBubbles, maxBubbleChars, signal, logger, sessionId } = options;
  const { ask } = options;
  const tools = [replyTool({ mode, maxBubbles, maxBubbleChars }), lookupTool(options.lookupTable), ...(ask === undefined ? [] : [askTool()])];
  const names = tools.map((tool) => tool.function.name);
  const toolNames = `${names.slice(0, -1).join(", ")} or ${names.at(-1) ?? ""}`;
  const sink = new BubbleSink({ sessionId, maxBubbles, send: options.send });
  const update = (body: Record<string, unknown>): Promise<void> => Promise.resolve(options.send("session/update", { sessionId, update: body }));

  const runCall = async (call: ToolCall): Promise<CallOutcome> => {
    const { name, arguments: args } = call.function;
    if (name === LOOKUP_TOOL_NAME) {
      await update({ sessionUpdate: "tool_call", toolCallId: call.id, title: LOOKUP_TOOL_NAME, kind: "search", status: "in_progress" });
      const result = runLookup(args, options.lookupTable);
      await update({ sessionUpdate: "tool_call_update", toolCallId: call.id, status: "completed", content: [{ type: "content", content: { type: "text", text: result } }] });
      return { result, ends: false };
    }
    if (name === ASK_TOOL_NAME && ask !== undefined) {
      await update({ sessionUpdate: "tool_call", toolCallId: call.id, title: ASK_TOOL_NAME, kind: "other", status: "in_progress" });
      const result = await ask(args);
      await update({ sessionUpdate: "tool_call_update", toolCallId: call.id, status: "completed", content: [{ type: "content", content: { type: "text", text: result } }] });
      return { result, ends: false };
    }
    if (name !== REPLY_TOOL_NAME) {
      logger.warn({ sessionId, tool: name }, "unknown tool called");
      return { result: `there is no tool named ${JSON.stringify(name)}; use ${toolNames}`, ends: false };
    }
    try {
      const input = parseReplyArguments(args);
      return mode === "envelope" ? await replyEnvelope(input) : await replyBubbles(input);
    } catch (err) {
      if (!(err instanceof ReplyInputError)) throw err;
      logger.warn({ sessionId, reason: err.problem, error: err.message }, "reply tool input rejected");
      return { result: `not sent: ${err.message}. Call ${REPLY_TOOL_NAME} again with a corrected input.`, ends: false };
    }
  };

  const replyEnvelope = async (input: unknown): Promise<CallOutcome> => {
    const { envelope, warnings } = renderEnvelope(input, { schema: options.schema, maxBubbles, maxBubbleChars });
    if (warnings.length > 0) logger.warn({ sessionId, reason: "unknown_next" }, UNKNOWN_NEXT_WARNING);
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(envelope) } });
    const count = envelope.messages.length;
    return { result: count === 0 ? "nothing was sent (silent); your turn is over." : `delivered ${count} message(s) to the user; your turn is over.`, ends: true };
  };

  const replyBubbles = async (input: unknown): Promise<CallOutcome> => {
    const delivery = await sink.emit(bubblesFromToolInput(input));
    if (delivery.stopped === "failed") {
      logger.error({ sessionId, delivered: sink.sent, err: delivery.error }, "bubble send failed; ending the turn");
      throw delivery.error ?? new Error("bubble send failed");
    }
    if (delivery.stopped === "capped") {
      logger.warn({ sessionId, reason: "max_bubbles", delivered: sink.sent, dropped: delivery.undelivered.length, max_bubbles: maxBubbles }, "reply cut short at max_bubbles");
    }
    return { result: bubbleToolResult(delivery, maxBubbles), ends: false };
  };

  /** The model answered without tools: what its text becomes (see `closingAction`); false: ask again. */
  const close = async (text: string): Promise<boolean> => {
    const action = closingAction(mode, text, { bubblesSent: sink.sent, silentToken: options.silentToken, schema: options.schema, maxBubbleChars });
    switch (action.kind) {
      case "too_long":
        logger.warn({ sessionId, reason: "too_long", max_bubble_chars: maxBubbleChars }, "plain answer too long for one bubble");
        transcript.push({ role: "user", content: action.note });
        return false;
      case "envelope":
        await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: JSON.stringify(action.envelope) } });
        return true;
      case "bubble":
        await replyBubbles({ messages: [action.text] });
        return true;
      case "silent_token":
        await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: action.token } });
        return true;
      case "nothing":
        logger.debug({ sessionId, reason: action.reason }, "closing text not delivered");
        return true;
    }
  };

  for (let step = 0; step < options.maxSteps; step++) {
    if (signal.aborted) return "cancelled";
    let assistant;
    try {
      assistant = await options.model.complete([...context, ...transcript], tools, signal);
    } catch (err) {
      if (signal.aborted) return "cancelled";
      throw err;
    }
    transcript.push(assistant);
    const calls = assistant.tool_calls ?? [];
    if (calls.length === 0) {
      if (await close(assistant.content ?? "")) return "end_turn";
      continue;
    }
    let ended = false;
    for (const call of calls) {
      if (signal.aborted) return "cancelled";
      const outcome: CallOutcome = ended ? { result: "not run: your reply already ended the turn.", ends: true } : await runCall(call);
      transcript.push({ role: "tool", tool_call_id: call.id, content: outcome.result });
      ended ||= outcome.ends;
    }
    if (ended) return "end_turn";
  }
  logger.warn({ sessionId, reason: "max_steps", steps: options.maxSteps }, "turn step limit reached");
  return "max_turn_requests";
}
