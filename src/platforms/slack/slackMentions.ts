/**
 * Whether `text` mentions the bot as Slack writes a mention: `<@BOTUID>`, or the labelled
 * `<@BOTUID|name>` older clients and other apps send (upstream's newer rule). `false` while the
 * bot's user id is unknown.
 */
export function mentionsBot(text: string, botUserId: string | undefined): boolean {
  if (botUserId === undefined || botUserId === "") return false;
  return text.includes(`<@${botUserId}>`) || text.includes(`<@${botUserId}|`);
}

/**
 * The prompt of a message (upstream's `resolve_slack_mentions`, §3.4 step 4): every mention of the
 * bot removed — `<@BOTUID>` and `<@BOTUID|label>` — then trimmed. Other users' mentions stay, so the
 * agent can mention people back; inner spaces stay as they were. With the bot's id unknown the text
 * is only trimmed. One pass over the text: each search starts where the last one ended.
 */
export function resolveSlackMentions(text: string, botUserId: string | undefined): string {
  if (botUserId === undefined || botUserId === "") return text.trim();
  const opener = `<@${botUserId}`;
  let out = "";
  let from = 0;
  for (;;) {
    const at = text.indexOf(opener, from);
    if (at < 0) break;
    const next = text.charCodeAt(at + opener.length);
    let end = -1;
    if (next === GT) end = at + opener.length + 1;
    else if (next === PIPE) {
      const close = text.indexOf(">", at + opener.length + 1);
      // No `>` left anywhere: no complete mention can follow either.
      if (close < 0) break;
      end = close + 1;
    }
    if (end < 0) {
      // `<@BOTUIDX…>`: another user whose id starts with the bot's; kept.
      out += text.slice(from, at + opener.length);
      from = at + opener.length;
      continue;
    }
    out += text.slice(from, at);
    from = end;
  }
  return (out + text.slice(from)).trim();
}

const GT = 0x3e;
const PIPE = 0x7c;
