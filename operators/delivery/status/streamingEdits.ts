import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from "rxjs";
import type { AgentEvent } from "../agentEvent.js";
import { composeStreamingDisplay, type ToolDisplay } from "./toolSummary.js";
import { emptyTranscript, reduceTranscript, SESSION_RESET_NOTICE, withAgentError, type TurnTranscript } from "../turnTranscript.js";

/** OpenAB's placeholder: what the message shows before the agent wrote anything. */
export const STREAMING_PLACEHOLDER = "…";

/** How often a streaming reply is edited at most (upstream's edit loop). */
export const STREAMING_EDIT_INTERVAL_MS = 1500;

/** Room left under the platform limit while a reply streams: longer text shows its tail. */
const PREVIEW_HEADROOM = 100;

/** One step of a streamed reply, for the caller to carry out in order. */
export type StreamingStep =
  /** Post the message that will be edited: the placeholder, or the first text when there is none. */
  | { readonly kind: "open"; readonly text: string }
  /** Edit it to show `text`. */
  | { readonly kind: "edit"; readonly text: string }
  /** The turn is over (an agent error is in the transcript): deliver the final reply. */
  | { readonly kind: "final"; readonly transcript: TurnTranscript };

export interface StreamingEditsOptions {
  /** `[gateway] streaming_placeholder` (and the platform's `show_streaming_placeholder` after a hello). */
  readonly placeholder: boolean;
  readonly toolDisplay: ToolDisplay;
  /** The platform's message limit in characters. */
  readonly limit: number;
  readonly intervalMs?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * A text turn as OpenAB streams it into one message: `open` with the placeholder (`…`, after the
 * reset notice when the session was lost) as soon as the turn starts, then every `intervalMs`
 * (1.5 s) an `edit` when what the message should show changed — the tool summary as upstream
 * composes it while streaming and the whole text so far, as `"…"` + its last `limit − 100`
 * characters while longer than that — and `final` with the transcript when the turn ends. An
 * agent error ends the turn too (it is in the transcript). Without a placeholder, `open` carries
 * the first text at the first tick that has some. A turn over before it could open (an instant
 * answer) is `final` alone.
 */
export function streamingEdits(options: StreamingEditsOptions): OperatorFunction<AgentEvent, StreamingStep> {
  const { placeholder, toolDisplay, limit, intervalMs = STREAMING_EDIT_INTERVAL_MS, scheduler = asyncScheduler } = options;
  return (events) =>
    new Observable<StreamingStep>((subscriber) => {
      let transcript = emptyTranscript();
      /** Bumped on every event: a tick with nothing new builds no text. */
      let version = 0;
      let seenVersion = 0;
      let shown: string | undefined;
      let opened = false;
      let ended = false;
      let timer: Subscription | undefined;
      const finish = (last: TurnTranscript): void => {
        if (ended) return;
        ended = true;
        transcript = last;
        timer?.unsubscribe();
        subscriber.next({ kind: "final", transcript });
        subscriber.complete();
      };
      const tick = (): void => {
        if (version === seenVersion) return;
        seenVersion = version;
        const text = preview(composeStreamingDisplay(transcript.tools, transcript.buffer, toolDisplay), limit);
        if (text === shown || (!opened && text === "")) return;
        shown = text;
        subscriber.next(opened ? { kind: "edit", text } : { kind: "open", text });
        opened = true;
      };
      const source = events.subscribe({
        next: (event) => {
          transcript = reduceTranscript(transcript, event);
          version += 1;
        },
        error: (err: unknown) => finish(withAgentError(transcript, err)),
        complete: () => finish(transcript),
      });
      if (ended) return source;
      if (placeholder) {
        shown = transcript.reset ? `${SESSION_RESET_NOTICE}${STREAMING_PLACEHOLDER}` : STREAMING_PLACEHOLDER;
        opened = true;
        subscriber.next({ kind: "open", text: shown });
      }
      timer = scheduler.schedule(function repeat() {
        tick();
        if (!ended) this.schedule(undefined, intervalMs);
      }, intervalMs);
      return () => {
        timer?.unsubscribe();
        source.unsubscribe();
      };
    });
}

/** What a streaming message shows of `text`: all of it, or `"…"` + its last `limit − 100` characters. Linear. */
export function preview(text: string, limit: number): string {
  const room = Math.max(1, limit - PREVIEW_HEADROOM);
  // Counting from the end, by code points, stops after `room + 1` of them.
  let count = 0;
  let index = text.length;
  while (index > 0) {
    const code = text.charCodeAt(index - 1);
    const step = code >= 0xdc00 && code <= 0xdfff && index >= 2 && isHigh(text.charCodeAt(index - 2)) ? 2 : 1;
    if (count === room) return `${STREAMING_PLACEHOLDER}${text.slice(index)}`;
    index -= step;
    count += 1;
  }
  return text;
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
