/** One summary line for a message the busy-session queue dropped: whitespace collapsed, ≤ 160 chars. */
export function summaryLine(text: string, maxChars = 160): string {
  const collapsed = text.replace(/\s+/g, " ").trim();
  const chars = [...collapsed];
  return chars.length <= maxChars ? collapsed : `${chars.slice(0, maxChars - 1).join("")}…`;
}

/**
 * The prompt of a collected turn (OpenClaw's `collect` format): a header, then one block per queued
 * message with its sender, and, when the cap dropped some, an overflow block with their summaries.
 */
export function collectedPrompt(messages: readonly { readonly sender: string; readonly text: string }[], dropped: readonly string[] = []): string {
  const parts = ["[Queued messages while agent was busy]"];
  messages.forEach((message, i) => parts.push(`---\nQueued #${i + 1} (from ${message.sender})\n${message.text}`));
  if (dropped.length > 0) parts.push(overflowNotice(dropped));
  return parts.join("\n\n");
}

/** OpenClaw's overflow block: how many queued messages the cap dropped, and a summary line of each. */
export function overflowNotice(dropped: readonly string[]): string {
  return `[Queue overflow] Dropped ${dropped.length} messages due to cap.\nSummary:\n${dropped.map((line) => `- ${line}`).join("\n")}`;
}
