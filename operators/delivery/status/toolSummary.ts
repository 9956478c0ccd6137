import { untrustedText } from "../../ingress/untrustedText.js";
import { redactedText } from "../text/redactedText.js";
import { redactSecrets, type Redact } from "../text/redactSecrets.js";
import { rustTrimEnd } from "../text/rustWhitespace.js";
import type { ToolEntry, ToolState } from "../turnTranscript.js";

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

/**
 * The tool summary while a reply streams (OpenAB's `compose_display` with `streaming`): under
 * `full`, finished calls first — their groups as lines while there are at most 3, else one count
 * line `✅ <done> · ❌ <failed> tool(s) completed` — then running calls — their groups while at most
 * 3, else `🔧 <n> more running` for the calls of the groups left out, then the last 3 groups.
 * `compact` and `none` are as in a final reply.
 */
export function renderStreamingToolSummary(tools: readonly ToolEntry[], mode: ToolDisplay): string {
  if (mode !== "full" || tools.length === 0) return renderToolSummary(tools, mode);
  const finished = groupConsecutive(tools.filter((tool) => tool.state !== "running"));
  const running = groupConsecutive(tools.filter((tool) => tool.state === "running"));
  let out = "";
  if (finished.length <= STREAMING_GROUPS_SHOWN) out += finished.map((group) => `${renderGroup(group)}\n`).join("");
  else out += `${countParts(tools, ["completed", "failed"])} tool(s) completed\n`;
  if (running.length <= STREAMING_GROUPS_SHOWN) {
    out += running.map((group) => `${renderGroup(group)}\n`).join("");
  } else {
    const shown = running.slice(-STREAMING_GROUPS_SHOWN);
    const hidden = running.slice(0, -STREAMING_GROUPS_SHOWN).reduce((calls, group) => calls + group.count, 0);
    out += `🔧 ${hidden} more running\n` + shown.map((group) => `${renderGroup(group)}\n`).join("");
  }
  return out;
}

/** `composeDisplay` while the reply streams: the streaming tool summary, a blank line, the body without trailing whitespace. */
export function composeStreamingDisplay(tools: readonly ToolEntry[], body: string, mode: ToolDisplay): string {
  const summary = renderStreamingToolSummary(tools, mode);
  const text = rustTrimEnd(body);
  return summary === "" ? text : `${summary}\n${text}`;
}

/** Groups of finished or running calls a streaming summary lists one per line before it collapses them. */
const STREAMING_GROUPS_SHOWN = 3;

/**
 * A tool title as the summary shows it, made once where the title enters the broker: cleaned,
 * redacted as activity previews are (agents often use the command as the title, URL credentials
 * and tokens included), flattened by `sanitizeToolTitle` (upstream's ` ; `), bounded to 500 chars.
 * Redaction runs on the whole title, before any cut.
 */
export function toolTitleText(raw: string, redact: Redact = redactSecrets): string {
  return untrustedText(sanitizeToolTitle(redactedText(raw, redact, { multiline: true })));
}

/** Flattens a title to one line that cannot break out of its inline-code span. */
export function sanitizeToolTitle(title: string): string {
  return title.replaceAll("\r", "").replaceAll("\n", " ; ").replaceAll("`", "'");
}

/** `✅ <done> · ❌ <failed> · 🔧 <running> tool(s)`, listing only the non-zero counts. */
function renderCounts(tools: readonly ToolEntry[]): string {
  const parts = countParts(tools, ["completed", "failed", "running"]);
  return parts === "" ? "" : `${parts} tool(s)\n`;
}

/** `✅ <n> · ❌ <n> · 🔧 <n>` for `states`, in that order, leaving out the zero counts. */
function countParts(tools: readonly ToolEntry[], states: readonly ToolState[]): string {
  const counts: Record<ToolState, number> = { completed: 0, failed: 0, running: 0 };
  for (const tool of tools) counts[tool.state] += 1;
  return states
    .filter((state) => counts[state] > 0)
    .map((state) => `${ICON[state]} ${counts[state]}`)
    .join(" · ");
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
