import type { Question, QuestionOutcome } from "../ask/question.js";

/**
 * What an agent did during one prompt turn, in wire order: the typed form of its
 * `session/update` notifications, closed by `end` (or an error).
 */
export type AgentEvent =
  | AgentTextEvent
  | AgentThoughtEvent
  | ToolStartEvent
  | ToolUpdateEvent
  | ToolDoneEvent
  | PlanEvent
  | ConfigUpdateEvent
  | OpenabMessageEvent
  | ReplyPlanEvent
  | ReplyBubblesEvent
  | UnknownUpdateEvent
  | SessionResetEvent
  | QuestionEvent
  | AgentFileEvent
  | FileReadyEvent
  | TurnEndEvent;

/**
 * A file the agent made for the chat: an ACP `image`, `resource` or `resource_link` content block
 * in its message stream, or a `send_file` tool call. Nothing in it is trusted: the worker resolves
 * it (path rule, size limit) into a `file_ready` event at the same place in the turn
 * (`src/turn/files/`), and only that is delivered.
 */
export interface AgentFileEvent {
  readonly type: "file";
  readonly file: AgentFile;
  /** `send_file` only: told once what became of the file, before the tool answers. */
  readonly settle?: (outcome: AgentFileOutcome) => void;
}

export interface AgentFile {
  /** The name the agent gave it (untrusted: cleaned to a base name before anyone sees it); absent: none. */
  readonly name?: string;
  /** The media type the agent gave (untrusted); absent: guessed from the name. */
  readonly mimeType?: string;
  /** A caption to post with it (`send_file`); absent: none. */
  readonly caption?: string;
  readonly source: AgentFileSource;
}

/** Where a file's bytes are: inline in the update (base64 or text), or a path the agent named. */
export type AgentFileSource =
  | { readonly kind: "base64"; readonly data: string }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "path"; readonly path: string };

/**
 * What became of one `send_file` call's file: queued to be delivered with the turn's reply, or
 * refused for a reason the model may be told (`not_found` covers every path that is not allowed,
 * so the tool is no existence oracle).
 */
export type AgentFileOutcome =
  | { readonly kind: "accepted"; readonly filename: string; readonly size: number }
  | { readonly kind: "refused"; readonly reason: FileRefusal; readonly maxBytes?: number };

/** Why a file did not reach the chat: stable reasons, as logged. */
export type FileRefusal = "not_found" | "too_big" | "too_many" | "invalid" | "store_failed" | "turn_ended";

/**
 * A file resolved and stored, ready to go at its place in the reply; or one that cannot go, whose
 * name and size the conversation is told instead (`refused`).
 */
export interface FileReadyEvent {
  readonly type: "file_ready";
  readonly filename: string;
  readonly size: number;
  readonly caption: string;
  readonly ready: { readonly kind: "stored"; readonly mimeType: string; readonly image: boolean; readonly ref: string } | { readonly kind: "refused"; readonly reason: FileRefusal };
}

/**
 * The agent waits on questions for the person in the chat: a permission request under
 * `[agent] permission_mode = "ask"`, or an `ask` tool call. The turn asks them, one at a time, and
 * calls `settle` once with every question's outcome. Never part of the reply.
 */
export interface QuestionEvent {
  readonly type: "question";
  readonly kind: "permission" | "ask";
  readonly questions: readonly Question[];
  /** How long the whole interaction may wait for answers (ms). */
  readonly timeoutMs: number;
  /** A permission request's `permission_fallback`, as the chat is told it on a timeout; absent: nothing is chosen then. */
  readonly fallbackLabel?: string;
  /** Told exactly once: each question's outcome, in order. */
  readonly settle: (outcomes: readonly QuestionOutcome[]) => void;
}

/** `agent_message_chunk` with text. Chunks with the same `messageId` form one message. */
export interface AgentTextEvent {
  readonly type: "text";
  readonly text: string;
  readonly messageId?: string;
}

/** `agent_thought_chunk` with text. */
export interface AgentThoughtEvent {
  readonly type: "thought";
  readonly text: string;
}

export type ToolStatus = "pending" | "in_progress" | "completed" | "failed";

/** `tool_call` (also a repeated one for the same id: upsert by `id`). */
export interface ToolStartEvent {
  readonly type: "tool_start";
  readonly id: string;
  readonly title: string;
  readonly kind?: string;
  readonly status?: ToolStatus;
  /** ACP `rawInput`, as the agent sent it (untrusted): only ever previewed through `toolActivityLine`. */
  readonly input?: unknown;
}

/** `tool_call_update` that does not finish the tool. */
export interface ToolUpdateEvent {
  readonly type: "tool_update";
  readonly id: string;
  readonly title?: string;
  readonly status?: ToolStatus;
}

/** `tool_call_update` with status `completed` or `failed`. */
export interface ToolDoneEvent {
  readonly type: "tool_done";
  readonly id: string;
  readonly title?: string;
  readonly status: "completed" | "failed";
}

export interface PlanEntry {
  readonly content: string;
  readonly priority: string;
  readonly status: string;
}

/** `plan`: replaces the whole plan. */
export interface PlanEvent {
  readonly type: "plan";
  readonly entries: readonly PlanEntry[];
}

/** `config_option_update`: the session's full set of config options. */
export interface ConfigUpdateEvent {
  readonly type: "config_update";
  readonly configOptions: readonly unknown[];
}

/** OpenAB's `openab_message` extension: one bubble, decided now (sequential delivery). */
export interface OpenabMessageEvent {
  readonly type: "openab_message";
  readonly id: string;
  readonly text: string;
}

/**
 * Structured mode: the agent called turnstream's MCP `reply` tool (src/mcp). The call, rendered as
 * an `openab.turn.v1` envelope, is the turn's reply: delivered exactly as a parsed envelope, and
 * the turn's text is not delivered. Only a turn's first call counts (the tool refuses later ones).
 */
export interface ReplyPlanEvent {
  readonly type: "reply_plan";
  /** The envelope's JSON text. */
  readonly envelope: string;
}

/**
 * Sequential mode: the agent called the `reply` tool; each message is a bubble, sent on arrival as
 * `openab_message` is, under the same per-turn cap. `settle` is called exactly once, when every
 * accepted message was acked (or a send failed, or the cap dropped them all), with what became of
 * them: the tool's answer to the model waits for it.
 */
export interface ReplyBubblesEvent {
  readonly type: "reply_bubbles";
  /** In order; blank ones are skipped. */
  readonly messages: readonly string[];
  readonly settle: (outcome: ReplyBubblesOutcome) => void;
}

/** What a sequential `reply` call's messages came to. */
export interface ReplyBubblesOutcome {
  /** Messages the gateway acked. */
  readonly delivered: number;
  /** Messages the per-turn cap dropped. */
  readonly dropped: number;
  /** A send failed: the call's later messages (and the turn's) were not sent. */
  readonly failed: boolean;
}

/** Any other update, or a known one in a shape turnstream does not model: kept, never dropped. */
export interface UnknownUpdateEvent {
  readonly type: "unknown";
  readonly sessionUpdate: string;
  readonly raw: unknown;
}

/** The turn runs on a fresh session because the previous one was lost; delivery shows a notice. */
export interface SessionResetEvent {
  readonly type: "session_reset";
}

export interface TokenUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly totalTokens?: number;
}

/** The agent answered `session/prompt`: the turn is over. Always the last event. */
export interface TurnEndEvent {
  readonly type: "end";
  /** `end_turn`, `max_tokens`, `max_turn_requests`, `refusal`, `cancelled` (or an agent's own). */
  readonly stopReason: string;
  readonly usage?: TokenUsage;
}
