import { defer, tap, type MonoTypeOperatorFunction } from "rxjs";
import type { AgentEvent, OpenabMessageEvent } from "../agentEvent.js";

/**
 * For turns whose `[delivery] mode` is not `sequential`: passes every event through unchanged and
 * calls `warn` for the turn's first `openab_message` only (once per subscription, i.e. per turn),
 * so the caller warns once; the bubble itself is ignored by the text
 * path, which delivers the turn's text as usual.
 */
export function warnIgnoredBubbles(warn: (bubble: OpenabMessageEvent) => void): MonoTypeOperatorFunction<AgentEvent> {
  return (events) =>
    defer(() => {
      let warned = false;
      return events.pipe(
        tap((event) => {
          if (event.type !== "openab_message" || warned) return;
          warned = true;
          warn(event);
        }),
      );
    });
}
