/**
 * Characters Discord reads as formatting anywhere in a line: `\` itself, bold/italic/list `*`,
 * italic/underline `_`, strikethrough `~`, spoiler `|`, code `` ` ``, a masked link's `[` `]`, the
 * `<` that opens a mention, a channel, a custom emoji or a timestamp, and `@` (`@everyone`/`@here`
 * show plain). A `:` before `//` too, so `http://…` is no link: no preview, no backslash inside a
 * URL (Discord's link rule takes one escaped URL whole, backslashes and all).
 */
const ANYWHERE = /[\\*_~|`[\]<@]|:(?=\/\/)/g;

/**
 * What Discord reads only at a line's start (after spaces): a heading or subtext `#`/`-#`, a quote
 * `>`/`>>>`, a list item `-`/`+` (`*` is escaped anywhere) or `1.`. Escaping its first mark is enough:
 * the rest of the line no longer starts one.
 */
const LINE_START = /^([ \t]*)(?:([#>+-])|(\d+)\.)/;

/**
 * `text` as a Discord message that shows exactly its characters: a backslash before each mark
 * Discord would read as formatting or a mention, which Discord shows as the mark itself (its escape
 * rule takes `\` before any character that is not a letter, digit or space). Line by line, so a
 * part of a split text escapes as it starts its own message.
 *
 * Not @discordjs/formatters' `escapeMarkdown`: the package is no dependency here, and that function
 * leaves headings, lists and masked links alone unless asked, and mentions and `://` always.
 */
export function escapeMarkdown(text: string): string {
  return text.split("\n").map(escapeLine).join("\n");
}

function escapeLine(line: string): string {
  // The line-start marks are none of ANYWHERE's, so the line's start reads the same after that pass.
  return line.replace(ANYWHERE, "\\$&").replace(LINE_START, (_whole, indent: string, mark: string | undefined, digits: string | undefined) => (mark === undefined ? `${indent}${digits}\\.` : `${indent}\\${mark}`));
}
