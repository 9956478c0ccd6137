/**
 * Whether Telegram refused a text because its legacy Markdown did not parse (`Bad Request: can't
 * parse entities: …`, `… can't find end of italic entity …`): OpenAB then sends it again as plain
 * text. Matched on the description, case-insensitively, as upstream (`is_markdown_parse_error`).
 */
export function isMarkdownParseError(description: string): boolean {
  const lower = description.toLowerCase();
  return lower.includes("can't find end") || lower.includes("can't parse") || lower.includes("parse entities");
}
