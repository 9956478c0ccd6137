/** Names a mention shows, where the fake knows them. */
export interface MentionNames {
  readonly user?: (id: string) => string | undefined;
  readonly role?: (id: string) => string | undefined;
  readonly channel?: (id: string) => string | undefined;
}

interface Rule {
  readonly pattern: RegExp;
  /** Only where a line starts (Discord's block rules). */
  readonly lineStart?: boolean;
  readonly show: (match: RegExpExecArray, view: TextView) => string;
}

/**
 * The characters a person reads in a message's `content` as Discord's client renders it: formatting
 * marks gone, escapes resolved, mentions as names, list items with their bullet or number. A model
 * of Discord's Markdown, which is simple-markdown's rules plus Discord's (spoilers, mentions,
 * headings, subtext, lists, quotes, masked links), tried in this order at each position, each
 * anchored where the last ended — the rules' patterns are simple-markdown's where it has them:
 *
 * - an escape: `\` before any character but a letter, digit or whitespace shows that character;
 * - a code block (three backticks, an optional language line) shows its content as written;
 * - at a line's start: `>>> ` quotes the rest, `> ` the line; `#`–`###` a heading, `-#` subtext,
 *   `-`/`*`/`+` a bullet (shown `• `) and `N.` a numbered item (consecutive ones counted on from
 *   the first's number, as Discord does);
 * - a masked link `[text](url)` shows its text; `<url>` and a bare `http(s)://…` the URL as written
 *   (backslashes included: the link rule takes it whole before any escape);
 * - `<@id>`/`<@!id>`, `<@&id>`, `<#id>`, `<:name:id>`, `</name:id>`, `<t:seconds>` show as a name;
 * - `**bold**`, `__underline__`, `*italic*`/`_italic_`, `~~strike~~`, `||spoiler||` (as revealed)
 *   show their inside, rendered; `` `code` `` its inside as written;
 * - anything else as written (`@everyone` too: whether it pings is the message's `mention_everyone`).
 *
 * Whitespace and line breaks are kept as written. What it does not model: tables (Discord has none),
 * emoji shortcodes (a bot's `:smile:` stays text), embeds.
 */
export function shownText(content: string, names: MentionNames = {}): string {
  return new TextView(names).render(content, true);
}

class TextView {
  /** The number the next consecutive numbered item shows. */
  next: number | undefined;

  constructor(readonly names: MentionNames) {}

  render(source: string, startsLine: boolean): string {
    let shown = "";
    let rest = source;
    let atLineStart = startsLine;
    while (rest !== "") {
      const [rule, match] = this.#first(rest, atLineStart);
      if (atLineStart && rule !== NUMBERED) this.next = undefined;
      shown += rule.show(match, this);
      atLineStart = match[0].endsWith("\n");
      rest = rest.slice(match[0].length);
    }
    return shown;
  }

  #first(rest: string, atLineStart: boolean): [Rule, RegExpExecArray] {
    for (const rule of RULES) {
      if (rule.lineStart === true && !atLineStart) continue;
      const match = rule.pattern.exec(rest);
      if (match !== null && match[0] !== "") return [rule, match];
    }
    throw new Error(`shownText: no rule reads ${JSON.stringify(rest.slice(0, 20))}`);
  }
}

const lineEnd = (match: RegExpExecArray) => (match[0].endsWith("\n") ? "\n" : "");

const NUMBERED: Rule = {
  pattern: /^ *(\d{1,9})\. +([^\n]+)\n?/,
  lineStart: true,
  show: (match, view) => {
    const number = view.next ?? Number(match[1]);
    const item = `${number}. ${view.render(match[2]!, false)}${lineEnd(match)}`;
    view.next = number + 1;
    return item;
  },
};

const RULES: readonly Rule[] = [
  { pattern: /^\\([^0-9A-Za-z\s])/, show: (match) => match[1]! },
  { pattern: /^```(?:([a-z0-9_+\-.#]+?)\n)?\n*([^\n][\s\S]*?)\n*```/i, show: (match) => match[2]! },
  { pattern: /^>>> ([\s\S]*)/, lineStart: true, show: (match, view) => view.render(match[1]!, true) },
  { pattern: /^> ([^\n]*)\n?/, lineStart: true, show: (match, view) => `${view.render(match[1]!, true)}${lineEnd(match)}` },
  { pattern: /^#{1,3} +([^\n]+)\n?/, lineStart: true, show: (match, view) => `${view.render(match[1]!, false)}${lineEnd(match)}` },
  { pattern: /^-# +([^\n]+)\n?/, lineStart: true, show: (match, view) => `${view.render(match[1]!, false)}${lineEnd(match)}` },
  { pattern: /^ *[*+-] +([^\n]+)\n?/, lineStart: true, show: (match, view) => `• ${view.render(match[1]!, false)}${lineEnd(match)}` },
  NUMBERED,
  {
    pattern: /^\[((?:\[[^\]]*\]|[^[\]]|\](?=[^[]*\]))*)\]\(\s*<?((?:\([^)]*\)|[^\s\\]|\\.)*?)>?(?:\s+['"]([\s\S]*?)['"])?\s*\)/,
    show: (match, view) => view.render(match[1]!, false),
  },
  { pattern: /^<(https?:\/\/[^ >]+)>/, show: (match) => match[1]! },
  { pattern: /^https?:\/\/[^\s<]+[^<.,:;"')\]\s]/, show: (match) => match[0] },
  { pattern: /^<@!?(\d{1,20})>/, show: (match, view) => `@${view.names.user?.(match[1]!) ?? "unknown-user"}` },
  { pattern: /^<@&(\d{1,20})>/, show: (match, view) => `@${view.names.role?.(match[1]!) ?? "unknown-role"}` },
  { pattern: /^<#(\d{1,20})>/, show: (match, view) => `#${view.names.channel?.(match[1]!) ?? "unknown"}` },
  { pattern: /^<a?:(\w{2,32}):\d{1,20}>/, show: (match) => `:${match[1]!}:` },
  { pattern: /^<\/([\w -]{1,32}):\d{1,20}>/, show: (match) => `/${match[1]!}` },
  { pattern: /^<t:(-?\d{1,13})(?::[tTdDfFR])?>/, show: (match) => new Date(Number(match[1]) * 1000).toISOString() },
  { pattern: /^\*\*((?:\\[\s\S]|[^\\])+?)\*\*(?!\*)/, show: (match, view) => view.render(match[1]!, false) },
  { pattern: /^__((?:\\[\s\S]|[^\\])+?)__(?!_)/, show: (match, view) => view.render(match[1]!, false) },
  {
    pattern: /^\b_((?:__|\\[\s\S]|[^\\_])+?)_\b|^\*(?=\S)((?:\*\*|\\[\s\S]|\s+(?:\\[\s\S]|[^\s*\\]|\*\*)|[^\s*\\])+?)\*(?!\*)/,
    show: (match, view) => view.render(match[1] ?? match[2]!, false),
  },
  { pattern: /^~~([\s\S]+?)~~(?!_)/, show: (match, view) => view.render(match[1]!, false) },
  { pattern: /^\|\|([\s\S]+?)\|\|/, show: (match, view) => view.render(match[1]!, false) },
  { pattern: /^(`+)([\s\S]*?[^`])\1(?!`)/, show: (match) => match[2]! },
  // Text stops before anything a rule may start with, and after a line break (a line's start is where block rules apply).
  { pattern: /^(?:\n|[^\n]+?(?=[^0-9A-Za-z\s\u00c0-\uffff]|\n|\w+:\S|$))/, show: (match) => match[0] },
];
