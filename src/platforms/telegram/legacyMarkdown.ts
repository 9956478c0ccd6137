const MARKERS = new Set(["_", "*", "`", "["]);

/**
 * Whether Telegram can read `text` with `parse_mode: "Markdown"` (legacy): every `_`, `*`, `` ` ``
 * and `[` that is not escaped with `\` opens an entity that must be closed (by the same marker,
 * `]` for a link's text, ```` ``` ```` for a pre block), and entities do not nest, so what lies
 * inside one is not looked at. Anything else — `snake_case`, a lone `*` — Telegram refuses with
 * "Can't find end of the entity". One pass, linear in the text.
 */
export function readsAsLegacyMarkdown(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && MARKERS.has(text[i + 1] ?? "")) {
      i++;
      continue;
    }
    if (!MARKERS.has(c)) continue;
    if (c === "`" && text.startsWith("``", i + 1)) {
      const end = text.indexOf("```", i + 3);
      if (end < 0) return false;
      i = end + 2;
      continue;
    }
    const end = text.indexOf(c === "[" ? "]" : c, i + 1);
    if (end < 0) return false;
    i = end;
  }
  return true;
}
