import type { AgentEvent, FileReadyEvent, TokenUsage, ToolDoneEvent } from "./agentEvent.js";

/** Heads the turn's text when it runs on a fresh session because the previous one was lost. */
export const SESSION_RESET_NOTICE = "⚠️ _Session expired, starting fresh..._\n\n";

export type ToolState = "running" | "completed" | "failed";

/** One tool call of the turn, as the tool summary shows it. */
export interface ToolEntry {
  readonly id: string;
  /** The agent's title, raw: rendering sanitizes it. */
  readonly title: string;
  readonly state: ToolState;
}

/** What one turn produced, as the text path needs it (`delivery-and-triage.md` §11). */
export interface TurnTranscript {
  /** Every text chunk in order, after the reset notice when the turn started with a reset. */
  readonly buffer: string;
  /**
   * `buffer.length` when the last tool finished (0 if none did): send-once delivers only the text
   * after it. UTF-16 units here where OpenAB counts bytes; both are always a past buffer length.
   */
  readonly answerStart: number;
  /** Tool calls in call order, one entry per id. */
  readonly tools: readonly ToolEntry[];
  readonly reset: boolean;
  readonly stopReason?: string;
  readonly usage?: TokenUsage;
  /** The turn's error text when it ended in an error instead of `end`. */
  readonly agentError?: string;
  /**
   * Structured mode: the envelope JSON of the turn's first `reply` tool call. When set it is the
   * turn's reply, and `buffer` is not delivered.
   */
  readonly toolEnvelope?: string;
  /** `reply` tool calls of the turn (either mode). */
  readonly replyCalls: number;
  /** The turn's files, in the order the agent made them, each with where it came in the text. */
  readonly files: readonly TranscriptFile[];
}

/** A file of the turn and its place: `at` is `buffer.length` when it came (it follows that text). */
export interface TranscriptFile {
  readonly at: number;
  readonly file: FileReadyEvent;
}

export function emptyTranscript(): TurnTranscript {
  return { buffer: "", answerStart: 0, tools: [], reset: false, replyCalls: 0, files: [] };
}

/** The transcript after one more event of the turn. Pure: returns a new transcript. */
export function reduceTranscript(transcript: TurnTranscript, event: AgentEvent): TurnTranscript {
  switch (event.type) {
    case "text":
      return { ...transcript, buffer: transcript.buffer + event.text };
    case "session_reset":
      return startFresh(transcript);
    case "tool_start":
    case "tool_update":
      return { ...transcript, tools: markRunning(transcript.tools, event.id, event.title ?? "") };
    case "tool_done":
      // Set even for a tool the summary does not list: the answer is whatever follows the last tool.
      return { ...transcript, answerStart: transcript.buffer.length, tools: markDone(transcript.tools, event) };
    case "end":
      return {
        ...transcript,
        stopReason: event.stopReason,
        ...(event.usage === undefined ? {} : { usage: event.usage }),
      };
    case "reply_plan":
      // The first call is the reply; the tool refuses later ones, so one more here changes nothing.
      return { ...transcript, replyCalls: transcript.replyCalls + 1, ...(transcript.toolEnvelope === undefined ? { toolEnvelope: event.envelope } : {}) };
    case "reply_bubbles":
      return { ...transcript, replyCalls: transcript.replyCalls + 1 };
    case "file_ready":
      return { ...transcript, files: [...transcript.files, { at: transcript.buffer.length, file: event }] };
    // Thoughts, plans, config, bubbles and questions are not part of the text path; unknown updates are ignored.
    // A file the worker has not resolved yet is not deliverable; resolved, it comes as `file_ready`.
    case "file":
    case "question":
    case "thought":
    case "plan":
    case "config_update":
    case "openab_message":
    case "unknown":
      return transcript;
  }
}

/** The transcript of a turn that ended in `error` instead of `end`. */
export function withAgentError(transcript: TurnTranscript, error: unknown): TurnTranscript {
  // The ACP client's errors carry the user-facing text as their message ("Agent process died").
  return { ...transcript, agentError: error instanceof Error ? error.message : String(error) };
}

/**
 * Only a reset that comes first (as the session pool emits it) can put the notice at the head;
 * a later one would shift `answerStart` under text already placed, so it is ignored.
 */
function startFresh(transcript: TurnTranscript): TurnTranscript {
  const untouched = transcript.buffer === "" && transcript.tools.length === 0 && !transcript.reset;
  return untouched ? { ...transcript, reset: true, buffer: SESSION_RESET_NOTICE } : transcript;
}

/**
 * `tool_call`, or a `tool_call_update` that does not finish it: upsert as running. As OpenAB, a
 * call without a title is not recorded (and does not touch an existing entry).
 */
function markRunning(tools: readonly ToolEntry[], id: string, title: string): readonly ToolEntry[] {
  if (title === "") return tools;
  return upsert(tools, id, () => ({ id, title, state: "running" }));
}

/** Finishes the entry; an unseen id is added only when the update names it. */
function markDone(tools: readonly ToolEntry[], event: ToolDoneEvent): readonly ToolEntry[] {
  const title = event.title ?? "";
  const state = event.status;
  const known = tools.some((tool) => tool.id === event.id);
  if (!known && title === "") return tools;
  return upsert(tools, event.id, (existing) => ({
    id: event.id,
    // A later non-empty title replaces; an update without one keeps the earlier title.
    title: title === "" && existing !== undefined ? existing.title : title,
    state,
  }));
}

/** Replaces the entry with `id` in place (keeping call order), or appends a new one. */
function upsert(
  tools: readonly ToolEntry[],
  id: string,
  next: (existing: ToolEntry | undefined) => ToolEntry,
): readonly ToolEntry[] {
  const index = tools.findIndex((tool) => tool.id === id);
  if (index === -1) return [...tools, next(undefined)];
  return tools.map((tool, at) => (at === index ? next(tool) : tool));
}
