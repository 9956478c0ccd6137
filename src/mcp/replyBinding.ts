import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import { ReplyInputError } from "../agent/errors.js";
import { renderEnvelope } from "../agent/renderEnvelope.js";
import { askAnswers, askInputSchema, askQuestions } from "../agent/askTool.js";
import { readReplyInput } from "../agent/replyTool.js";
import { sendFileInputSchema, sendFileRequest } from "../agent/sendFileTool.js";
import type { Logger } from "../log/logger.js";
import { badInputResult, deliveredResult, fileResult, recordedResult, refusedResult, type ReplyRefusal } from "./replyToolResult.js";
import type { ReplyToolSpec } from "./replyToolSpec.js";

/** Where a running turn takes the `reply` calls it accepted: into its own stream of agent events. */
export type ReplyCallSink = (event: AgentEvent) => void;

/** Reports an `ask` call's progress to its client: an increasing count, an optional total, and what it waits for. */
export type AskProgress = (progress: number, total: number | undefined, message: string) => void;

/** How often a waiting `ask` call tells its client it is alive, unless the spec says otherwise. */
const ASK_PROGRESS_MS = 15_000;

/**
 * One ACP session's hold on the `reply` tool: the secret its MCP server authenticates with, and
 * the turn (if any) that a call may reach right now. A call is accepted only while a turn of this
 * session runs, and becomes an event of that turn — so it is delivered to the conversation that
 * produced the turn and to no other. Revoked when the session goes away; every later call is
 * refused.
 */
export class ReplyBinding {
  readonly sessionKey: string;
  readonly #spec: ReplyToolSpec;
  readonly #logger: Logger;
  #turn: RunningTurn | undefined;
  #revoked = false;

  constructor(sessionKey: string, spec: ReplyToolSpec, logger: Logger) {
    this.sessionKey = sessionKey;
    this.#spec = spec;
    this.#logger = logger;
  }

  /** From now until `close()` is called, calls are this turn's. */
  openTurn(sink: ReplyCallSink): { close(): void } {
    const turn: RunningTurn = { sink, replied: false };
    this.#turn = turn;
    return {
      close: () => {
        if (this.#turn === turn) this.#turn = undefined;
      },
    };
  }

  revoke(): void {
    this.#revoked = true;
    this.#turn = undefined;
  }

  /** One `tools/call` of `reply` (its input already checked against the tool's schema by the SDK). */
  call(input: unknown): Promise<CallToolResult> {
    const turn = this.#revoked ? undefined : this.#turn;
    if (turn === undefined) return Promise.resolve(this.#refused(this.#revoked ? "reply_tool_unknown_secret" : "reply_tool_no_turn"));
    try {
      return this.#spec.mode === "envelope" ? Promise.resolve(this.#plan(turn, input)) : this.#bubbles(turn, input);
    } catch (err) {
      if (!(err instanceof ReplyInputError)) throw err;
      this.#logger.warn({ reason: "reply_tool_bad_input", sessionKey: this.sessionKey, problem: err.problem }, "reply tool call refused");
      return Promise.resolve(badInputResult(err.message));
    }
  }

  /**
   * One `tools/call` of `ask` (its input already checked by the SDK): the questions join the running
   * turn, which asks them in its conversation; the call answers once every question is answered,
   * the timeout passed, or the turn ended — with each question's answer, or marked unanswered.
   */
  ask(input: unknown, progress: AskProgress | undefined): Promise<CallToolResult> {
    const turn = this.#revoked ? undefined : this.#turn;
    if (turn === undefined) return Promise.resolve(this.#refused(this.#revoked ? "reply_tool_unknown_secret" : "reply_tool_no_turn"));
    const parsed = askInputSchema.safeParse(input);
    if (!parsed.success) return Promise.resolve(badInputResult("ask needs one to five questions, each with a header, the question, two or three options (label, description) and multi_select"));
    const questions = askQuestions(parsed.data);
    this.#logger.info({ sessionKey: this.sessionKey, questions: questions.length }, "ask tool called");
    return new Promise((resolve) => {
      // Progress must increase with each notification (MCP): a count of the keep-alives sent.
      let ticks = 0;
      const alive = progress === undefined ? undefined : setInterval(() => progress((ticks += 1), undefined, "waiting for the person in the chat"), this.#spec.askProgressMs ?? ASK_PROGRESS_MS);
      alive?.unref();
      turn.sink({
        type: "question",
        kind: "ask",
        questions,
        timeoutMs: this.#spec.askTimeoutMs ?? 600_000,
        settle: (outcomes) => {
          if (alive !== undefined) clearInterval(alive);
          const answers = askAnswers(parsed.data, outcomes);
          resolve({ content: [{ type: "text", text: JSON.stringify(answers) }], structuredContent: answers });
        },
      });
    });
  }

  /**
   * One `tools/call` of `send_file`: the file joins the running turn at this point of its reply,
   * to the turn's own conversation (the tool names none). The call answers once the turn checked it
   * (path, size) and stored it: accepted, or refused with a reason the model may act on.
   */
  sendFile(input: unknown): Promise<CallToolResult> {
    const turn = this.#revoked ? undefined : this.#turn;
    if (turn === undefined) return Promise.resolve(this.#refused(this.#revoked ? "reply_tool_unknown_secret" : "reply_tool_no_turn"));
    const parsed = sendFileInputSchema.safeParse(input);
    if (!parsed.success) return Promise.resolve(badInputResult("send_file needs exactly one of path and data (data with a filename), and an optional caption"));
    this.#logger.info({ sessionKey: this.sessionKey, source: parsed.data.path === undefined ? "data" : "path" }, "send_file tool called");
    return new Promise((resolve) => turn.sink({ type: "file", file: sendFileRequest(parsed.data), settle: (outcome) => resolve(fileResult(outcome)) }));
  }

  /** Structured: the turn's first call is its reply, rendered as the envelope it is delivered as. */
  #plan(turn: RunningTurn, input: unknown): CallToolResult {
    if (turn.replied) return this.#refused("reply_tool_already_replied");
    const { schema, maxBubbles, maxBubbleChars } = this.#spec;
    const { envelope, warnings } = renderEnvelope(input, { schema, maxBubbles, ...(maxBubbleChars === undefined ? {} : { maxBubbleChars }) });
    turn.replied = true;
    for (const warning of warnings) this.#logger.warn({ reason: "reply_tool_next", sessionKey: this.sessionKey }, warning);
    this.#logger.info({ sessionKey: this.sessionKey, mode: "structured", messages: envelope.messages.length, next: envelope.next.type }, "reply tool called");
    turn.sink({ type: "reply_plan", envelope: JSON.stringify(envelope) });
    return recordedResult(envelope.messages.length, envelope.next.type === "silent");
  }

  /** Sequential: the call's messages go out now; the answer waits until they were acked. */
  #bubbles(turn: RunningTurn, input: unknown): Promise<CallToolResult> {
    const { messages } = readReplyInput(input);
    if (messages.length === 0) throw new ReplyInputError("empty_turn", "reply was called without any message to send; to say nothing, do not call it");
    this.#logger.info({ sessionKey: this.sessionKey, mode: "sequential", messages: messages.length }, "reply tool called");
    return new Promise((resolve) => turn.sink({ type: "reply_bubbles", messages, settle: (outcome) => resolve(deliveredResult(outcome, messages.length)) }));
  }

  #refused(reason: Exclude<ReplyRefusal, "reply_tool_bad_input">): CallToolResult {
    this.#logger.warn({ reason, sessionKey: this.sessionKey }, "reply tool call refused");
    return refusedResult(reason);
  }
}

interface RunningTurn {
  readonly sink: ReplyCallSink;
  /** Structured: a reply was recorded. */
  replied: boolean;
}
