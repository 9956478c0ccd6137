import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from "rxjs";
import type { AgentEvent } from "../agentEvent.js";
import { preview } from "./streamingEdits.js";
import type { ToolDisplay } from "./toolSummary.js";
import { toolActivityLine } from "./toolActivity.js";
import type { PreviewPlaces } from "./toolPreview.js";
import { redactSecrets, type Redact } from "../text/redactSecrets.js";

/** How many lines the activity message remembers; older ones are dropped first (mono-agent's bound). */
export const ACTIVITY_MAX_ENTRIES = 512;

/** How often the activity message is edited at most. */
export const ACTIVITY_EDIT_INTERVAL_MS = 1500;

/** One step of a turn's activity message. */
export type ActivityStep =
  /** The first tool started: post the message. */
  | { readonly kind: "open"; readonly text: string }
  | { readonly kind: "edit"; readonly text: string }
  /** The turn is over: delete the message, or where that is impossible show `summary`. */
  | { readonly kind: "close"; readonly summary: string };

export interface ActivityOptions {
  /** `[reactions] tool_display`: `full` lists each call, `compact` one count line. (`none` shows no activity message.) */
  readonly toolDisplay: Exclude<ToolDisplay, "none">;
  /** The platform's message limit, in characters: a longer list shows its tail. */
  readonly limit: number;
  readonly places?: PreviewPlaces;
  /** Masks secrets in the previews (default: the known token shapes; the broker adds every secret it holds). */
  readonly redact?: Redact;
  readonly intervalMs?: number;
  readonly scheduler?: SchedulerLike;
}

interface Entry {
  readonly line: string;
  count: number;
  running: number;
  failed: number;
}

/**
 * A turn's tool activity as one transient message (mono-agent's tool-activity ledger): `open` when
 * the first tool starts, then an `edit` whenever tools start or finish — at once when the last
 * one is `intervalMs` old, else at the end of that window with what it shows then — and `close`
 * (with a one-line summary) when the turn's events end. One line per call (`toolActivityLine`),
 * consecutive repeats as `(×N)`, a running call marked `…` and a failed one `✗`; at most 512
 * lines, oldest dropped first, and the text cut to its tail within the platform limit. A turn
 * without tools produces nothing.
 */
export function activityMessage(options: ActivityOptions): OperatorFunction<AgentEvent, ActivityStep> {
  const { toolDisplay, limit, places = {}, redact = redactSecrets, intervalMs = ACTIVITY_EDIT_INTERVAL_MS, scheduler = asyncScheduler } = options;
  return (events) =>
    new Observable<ActivityStep>((subscriber) => {
      const entries: Entry[] = [];
      /** Running calls' entries; `seen` keeps a repeated `tool_call` for one id from counting twice. */
      const byId = new Map<string, Entry>();
      const seen = new Set<string>();
      let calls = 0;
      let failedCalls = 0;
      let opened = false;
      let shown = "";
      let lastAt = 0;
      let trailing: Subscription | undefined;
      const render = (): string => {
        if (toolDisplay === "compact") return countLine(calls, failedCalls, runningCalls());
        const text = entries.map((entry) => `${entry.line}${entry.count > 1 ? ` (×${entry.count})` : ""}${entry.running > 0 ? " …" : entry.failed > 0 ? " ✗" : ""}`).join("\n");
        return preview(text, limit);
      };
      const runningCalls = (): number => entries.reduce((sum, entry) => sum + entry.running, 0);
      const show = (): void => {
        trailing = undefined;
        const text = render();
        if (text === shown) return;
        shown = text;
        lastAt = scheduler.now();
        subscriber.next({ kind: "edit", text });
      };
      const changed = (): void => {
        if (!opened) {
          opened = true;
          shown = render();
          lastAt = scheduler.now();
          subscriber.next({ kind: "open", text: shown });
          return;
        }
        if (trailing !== undefined) return;
        const wait = lastAt + intervalMs - scheduler.now();
        if (wait <= 0) show();
        else trailing = scheduler.schedule(show, wait);
      };
      const started = (id: string, line: string): void => {
        if (seen.has(id)) return;
        seen.add(id);
        calls += 1;
        const last = entries[entries.length - 1];
        let entry: Entry;
        if (last !== undefined && last.line === line) {
          entry = last;
          entry.count += 1;
        } else {
          entry = { line, count: 1, running: 0, failed: 0 };
          entries.push(entry);
          if (entries.length > ACTIVITY_MAX_ENTRIES) entries.shift();
        }
        entry.running += 1;
        byId.set(id, entry);
        changed();
      };
      const finished = (id: string, failed: boolean): void => {
        const entry = byId.get(id);
        if (entry === undefined) return;
        byId.delete(id);
        entry.running -= 1;
        if (failed) {
          entry.failed += 1;
          failedCalls += 1;
        }
        changed();
      };
      const close = (): void => {
        trailing?.unsubscribe();
        if (opened) subscriber.next({ kind: "close", summary: countLine(calls, failedCalls, 0) });
        subscriber.complete();
      };
      const source = events.subscribe({
        next: (event) => {
          if (event.type === "tool_start") started(event.id, toolActivityLine(event, places, redact));
          else if (event.type === "tool_done") finished(event.id, event.status === "failed");
        },
        error: close,
        complete: close,
      });
      return () => {
        trailing?.unsubscribe();
        source.unsubscribe();
      };
    });
}

/** `🔧 3 tool calls`, with `(1 failed)` and `, 1 running` when there are some. */
function countLine(calls: number, failed: number, running: number): string {
  const failedPart = failed > 0 ? ` (${failed} failed)` : "";
  const runningPart = running > 0 ? `, ${running} running` : "";
  return `🔧 ${calls} tool call${calls === 1 ? "" : "s"}${failedPart}${runningPart}`;
}
