/**
 * Discord's mention markup in a message's text (OpenAB's `resolve_mentions`, §2.4), read in one
 * pass: `<@ID>` / `<@!ID>` (a user, the `!` form legacy) and `<@&ID>` (a role).
 */

/** The prompt a message's text becomes: this bot's mentions and the allowed roles' removed, other roles as `@(role)`, other users kept, trimmed. */
export function resolveMentions(content: string, botId: string, allowedRoleIds: ReadonlySet<string>): string {
  let out = "";
  let i = 0;
  while (i < content.length) {
    const token = content.startsWith("<@", i) ? mentionAt(content, i) : undefined;
    if (token === undefined) {
      out += content[i];
      i += 1;
      continue;
    }
    const raw = content.slice(i, token.end);
    if (token.role) out += allowedRoleIds.has(token.id) ? "" : "@(role)";
    else out += token.id === botId ? "" : raw;
    i = token.end;
  }
  return out.trim();
}

/** Whether the text holds `<@botId>` (what upstream looks for besides the message's mention list). */
export function textMentions(content: string, botId: string): boolean {
  return content.includes(`<@${botId}>`);
}

interface MentionToken {
  readonly role: boolean;
  readonly id: string;
  /** Index just after the closing `>`. */
  readonly end: number;
}

/** The mention starting at `start` (which holds `<@`), or undefined when the markup is not one. */
function mentionAt(content: string, start: number): MentionToken | undefined {
  let j = start + 2;
  const marker = content[j];
  const role = marker === "&";
  if (marker === "&" || marker === "!") j += 1;
  const digitsFrom = j;
  while (j < content.length && isDigit(content.charCodeAt(j))) j += 1;
  if (j === digitsFrom || content[j] !== ">") return undefined;
  return { role, id: content.slice(digitsFrom, j), end: j + 1 };
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}
