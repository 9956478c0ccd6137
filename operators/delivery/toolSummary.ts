import { rustTrimEnd } from "./rustWhitespace.js";
import type { ToolEntry, ToolState } from "./turnTranscript.js";

/** `[reactions] tool_display`. */
export type ToolDisplay = "full" | "compact" | "none";

/**
 * The tool summary that heads a final (non-streaming) reply, as OpenAB's `compose_display`
 * renders it: one line per run of consecutive same-title same-state calls (`full`), or one
 * count line (`compact`). Every line ends in `\n`; `""` when there is nothing to show.
 */
export function renderToolSummary(tools: readonly ToolEntry[], mode: ToolDisplay): string {
  if (mode === "none" || tools.length === 0) return "";
  return mode === "compact" ? renderCounts(tools) : renderGroups(tools);
}

/** The reply as shown: the tool summary, a blank line, then the body without trailing whitespace. */
export function composeDisplay(tools: readonly ToolEntry[], body: string, mode: ToolDisplay): string {
  const summary = renderToolSummary(tools, mode);
  const text = rustTrimEnd(body);
  return summary === "" ? text : `${summary}\n${text}`;
}

/** Flattens a title to one line that cannot break out of its inline-code span. */
export function sanitizeToolTitle(title: string): string {
  return title.replaceAll("\r", "").replaceAll("\n", " ; ").replaceAll("`", "'");
}

/** `✅ <done> · ❌ <failed> · 🔧 <running> tool(s)`, listing only the non-zero counts. */
function renderCounts(tools: readonly ToolEntry[]): string {
  const count = (state: ToolState) => tools.filter((tool) => tool.state === state).length;
  const parts = [
    { icon: "✅", n: count("completed") },
    { icon: "❌", n: count("failed") },
    { icon: "🔧", n: count("running") },
  ]
    .filter(({ n }) => n > 0)
    .map(({ icon, n }) => `${icon} ${n}`);
  return parts.length === 0 ? "" : `${parts.join(" · ")} tool(s)\n`;
}

interface ToolGroup {
  readonly title: string;
  readonly state: ToolState;
  readonly count: number;
}

function renderGroups(tools: readonly ToolEntry[]): string {
  return groupConsecutive(tools)
    .map((group) => `${renderGroup(group)}\n`)
    .join("");
}

/**
 * One group per run of consecutive entries with the same sanitized title and state. Grouping is
 * over the whole list in call order, so `a, b, a` stays three lines.
 */
function groupConsecutive(tools: readonly ToolEntry[]): ToolGroup[] {
  const groups: ToolGroup[] = [];
  for (const tool of tools) {
    const title = sanitizeToolTitle(tool.title);
    const last = groups.at(-1);
    if (last !== undefined && last.title === title && last.state === tool.state) {
      groups[groups.length - 1] = { ...last, count: last.count + 1 };
    } else {
      groups.push({ title, state: tool.state, count: 1 });
    }
  }
  return groups;
}

const ICON: Record<ToolState, string> = { running: "🔧", completed: "✅", failed: "❌" };

/** ``✅ `t` ``, ``✅ `t` (×3)``; a running group keeps `...` last: ``🔧 `t` (×3)...``. */
function renderGroup({ title, state, count }: ToolGroup): string {
  const repeats = count > 1 ? ` (×${count})` : "";
  const ellipsis = state === "running" ? "..." : "";
  return `${ICON[state]} \`${title}\`${repeats}${ellipsis}`;
}
