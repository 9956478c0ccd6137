import { filter, type MonoTypeOperatorFunction } from "rxjs";
import type { GatewayEvent } from "turnstream/operators";

/** Drops events whose text contains any of `keywords` (case-insensitive), so no turn runs for them. */
export function keywordFilter(keywords: readonly string[]): MonoTypeOperatorFunction<GatewayEvent> {
  const needles = keywords.map((keyword) => keyword.toLowerCase());
  return filter((event) => {
    const text = event.content.text.toLowerCase();
    return !needles.some((needle) => text.includes(needle));
  });
}
