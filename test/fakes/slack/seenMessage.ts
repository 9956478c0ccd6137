import type { Workspace } from "./workspace.js";

/** Formatting a person sees on part of a message. */
export type SeenStyle = "bold" | "italic" | "strike" | "code" | "pre" | "quote" | "link";

/** What a person sees of a message in a Slack client. */
export interface SeenMessage {
  /**
   * The characters shown, in order: markup gone (`*b*` shows `b`, bold), `&lt;` `&gt;` `&amp;`
   * decoded, a mention as `@name`, a link as its label. A message with blocks shows its blocks (its
   * `text` is then the notification fallback), one line per block, buttons apart.
   */
  readonly text: string;
  /** Each piece of formatting, with the characters it styles. */
  readonly styles: readonly { readonly style: SeenStyle; readonly text: string }[];
  /** Who the message notifies: user ids, `channel`, `here`, `everyone`, `subteam^<id>`. */
  readonly mentions: readonly string[];
  /** The links, each with the label shown. */
  readonly links: readonly { readonly url: string; readonly label: string }[];
  /** The buttons' labels, in order. */
  readonly buttons: readonly string[];
}

/** A message's content as Slack keeps it: its text, its blocks, and `mrkdwn: false` when formatting was turned off. */
export interface MessageContent {
  readonly text: string;
  readonly blocks?: readonly unknown[] | undefined;
  readonly mrkdwn?: boolean | undefined;
}

const MARKS = new Set(["*", "_", "~"]);
const STYLE_OF: Readonly<Record<string, SeenStyle>> = { "*": "bold", _: "italic", "~": "strike" };
/** A `<…>` control sequence stands in the text as one private-use character while formatting is read. */
const CONTROL_BASE = 0xe000;

/**
 * What a person sees of a message, as Slack's formatting pages describe it: blocks when it has any
 * (a `plain_text` object shows its characters, `&lt;` `&gt;` `&amp;` decoded; a `mrkdwn` one is read
 * as mrkdwn; buttons are listed apart), else its `text`, read as mrkdwn unless `mrkdwn: false`.
 * mrkdwn: `*bold*`, `_italic_`, `~strike~` where the marks stand at a word's edge and close on the
 * same line, `` `code` ``, ```` ```pre``` ````, `>` quoting a line, and `<…>` control sequences —
 * `<@U…>` (a mention), `<!channel>` `<!here>` `<!everyone>` `<!subteam^…>` (notify), `<#C…>`,
 * `<url|label>`. Without formatting (`mrkdwn: false`) the control sequences are still read: only
 * escaping (`&lt;`) keeps a `<@U…>` from notifying. Emoji codes are left as typed.
 */
export function seenMessage(content: MessageContent, workspace: Workspace): SeenMessage {
  const reader = new Reader(workspace);
  const blocks = content.blocks ?? [];
  if (blocks.length > 0) blocks.forEach((block, index) => reader.block(block as Record<string, unknown>, index));
  else if (content.mrkdwn === false) reader.emit(reader.controls(content.text));
  else reader.mrkdwn(content.text);
  return { text: reader.text, styles: reader.styles, mentions: reader.mentions, links: reader.links, buttons: reader.buttons };
}

class Reader {
  text = "";
  readonly styles: { style: SeenStyle; text: string }[] = [];
  readonly mentions: string[] = [];
  readonly links: { url: string; label: string }[] = [];
  readonly buttons: string[] = [];
  /** How each control sequence of the text being read shows, by its stand-in's index. */
  #controls: { shown: string; mention?: string; link?: string }[] = [];

  readonly #workspace: Workspace;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  block(block: Record<string, unknown>, index: number): void {
    const start = this.text.length;
    if (index > 0 && this.text !== "") this.text += "\n";
    const before = this.text.length;
    switch (block.type) {
      case "section":
        [block.text, ...(Array.isArray(block.fields) ? block.fields : [])].filter((each) => each !== undefined).forEach((each, at) => this.textObject(each, at > 0));
        break;
      case "header":
        this.textObject(block.text, false);
        break;
      case "context":
        (Array.isArray(block.elements) ? block.elements : []).forEach((each, at) => this.textObject(each, at > 0, " "));
        break;
      case "actions":
        for (const element of Array.isArray(block.elements) ? block.elements : []) {
          const label = (element as { text?: { text?: unknown } }).text?.text;
          if (typeof label === "string") this.buttons.push(decode(label));
        }
        break;
      case "rich_text":
        this.richText(block.elements);
        break;
      case "markdown":
        this.text += String(block.text ?? "");
        break;
    }
    // A block that shows nothing takes no line.
    if (this.text.length === before) this.text = this.text.slice(0, start);
  }

  textObject(value: unknown, apart: boolean, separator = "\n"): void {
    const { type, text } = (value ?? {}) as { type?: unknown; text?: unknown };
    if (typeof text !== "string") return;
    if (apart) this.text += separator;
    if (type === "mrkdwn") this.mrkdwn(text);
    else if (type === "plain_text") this.text += decode(text);
  }

  /** A text read as mrkdwn: code blocks kept as written, then line by line. */
  mrkdwn(source: string): void {
    const text = this.controls(source);
    const parts = text.split("```");
    parts.forEach((part, index) => {
      // Odd parts are inside a ``` pair; an unpaired last fence shows as typed.
      const fenced = index % 2 === 1 && index < parts.length - 1;
      if (fenced) {
        this.styled("pre", () => this.emit(part.replace(/^\n/, "").replace(/\n$/, "")));
        return;
      }
      const shown = index % 2 === 1 ? `\`\`\`${part}` : part;
      shown.split("\n").forEach((line, at) => {
        if (at > 0) this.text += "\n";
        // A quote is a raw `>`; an escaped one (`&gt;`) is a character.
        if (line.startsWith(">")) this.styled("quote", () => this.inline(line.slice(line.startsWith("> ") ? 2 : 1)));
        else this.inline(line);
      });
    });
  }

  /** The control sequences of `source` as stand-ins, each remembered with how it shows. */
  controls(source: string): string {
    this.#controls = [];
    return source.replace(/<([^<>\n]*)>/g, (whole, inner: string) => {
      const control = this.control(inner);
      if (control === undefined) return whole;
      this.#controls.push(control);
      return String.fromCharCode(CONTROL_BASE + this.#controls.length - 1);
    });
  }

  /** Characters shown as they are (Slack's entities decoded), stand-ins as their controls. */
  emit(text: string): void {
    let plain = "";
    for (const char of text) {
      const code = char.charCodeAt(0);
      const control = code >= CONTROL_BASE && code < CONTROL_BASE + this.#controls.length ? this.#controls[code - CONTROL_BASE] : undefined;
      if (control === undefined) {
        plain += char;
        continue;
      }
      this.text += decode(plain);
      plain = "";
      if (control.mention !== undefined) this.mentions.push(control.mention);
      if (control.link !== undefined) {
        this.links.push({ url: control.link, label: control.shown });
        this.styles.push({ style: "link", text: control.shown });
      }
      this.text += control.shown;
    }
    this.text += decode(plain);
  }

  /** One line's inline formatting: code spans, then bold, italic and strike, nested. */
  inline(line: string): void {
    let plain = "";
    const flush = () => {
      this.emit(plain);
      plain = "";
    };
    let at = 0;
    while (at < line.length) {
      const char = line[at]!;
      if (char === "`") {
        const close = line.indexOf("`", at + 1);
        if (close > at + 1) {
          flush();
          this.styled("code", () => this.emit(line.slice(at + 1, close)));
          at = close + 1;
          continue;
        }
      }
      if (MARKS.has(char) && opens(line, at)) {
        const close = closing(line, at);
        if (close > 0) {
          flush();
          this.styled(STYLE_OF[char]!, () => this.inline(line.slice(at + 1, close)));
          at = close + 1;
          continue;
        }
      }
      plain += char;
      at++;
    }
    flush();
  }

  styled(style: SeenStyle, show: () => void): void {
    const from = this.text.length;
    show();
    this.styles.push({ style, text: this.text.slice(from) });
  }

  /** `rich_text` (a person's typed message): its sections' text, users, links and broadcasts. */
  richText(elements: unknown): void {
    for (const section of Array.isArray(elements) ? elements : []) {
      for (const element of ((section as { elements?: unknown }).elements as Record<string, unknown>[] | undefined) ?? []) {
        if (element.type === "text") this.text += String(element.text ?? "");
        else if (element.type === "user") {
          this.mentions.push(String(element.user_id));
          this.text += `@${this.nameOf(String(element.user_id))}`;
        } else if (element.type === "broadcast") {
          this.mentions.push(String(element.range));
          this.text += `@${String(element.range)}`;
        } else if (element.type === "link") this.text += String(element.text ?? element.url ?? "");
        else if (element.type === "emoji") this.text += `:${String(element.name)}:`;
      }
    }
  }

  /** How one `<…>` shows (Slack's "advanced formatting"), or undefined when it is none. */
  control(inner: string): { shown: string; mention?: string; link?: string } | undefined {
    const bar = inner.indexOf("|");
    const target = bar < 0 ? inner : inner.slice(0, bar);
    const label = bar < 0 ? undefined : decode(inner.slice(bar + 1));
    if (/^@[UW][A-Z0-9]+$/.test(target)) return { shown: `@${this.nameOf(target.slice(1), label)}`, mention: target.slice(1) };
    if (/^#C[A-Z0-9]+$/.test(target)) return { shown: `#${this.#workspace.conversation(target.slice(1))?.name ?? label ?? target.slice(1)}` };
    if (/^!(channel|here|everyone)$/.test(target)) return { shown: `@${target.slice(1)}`, mention: target.slice(1) };
    if (/^!subteam\^[A-Z0-9]+$/.test(target)) return { shown: label ?? `@${target.slice(9)}`, mention: target.slice(1) };
    if (target.startsWith("!date^")) return { shown: label ?? "" };
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return { shown: label ?? decode(target), link: decode(target) };
    return undefined;
  }

  nameOf(userId: string, label?: string): string {
    const user = this.#workspace.user(userId);
    if (user === undefined) return label ?? userId;
    return user.profile.display_name || user.real_name || user.name;
  }
}

/** Whether a mark at `at` opens formatting: at the start or after a non-word character, and before a non-space that is not the mark again. */
function opens(line: string, at: number): boolean {
  const next = line[at + 1];
  return (at === 0 || !isWordChar(line[at - 1]!)) && next !== undefined && !/\s/.test(next) && next !== line[at];
}

/** Where the mark opened at `at` closes on this line (after a non-space, before a non-word character), or -1. */
function closing(line: string, at: number): number {
  const mark = line[at]!;
  for (let close = line.indexOf(mark, at + 2); close > 0; close = line.indexOf(mark, close + 1)) {
    const after = line[close + 1];
    if (!/\s/.test(line[close - 1]!) && (after === undefined || !isWordChar(after))) return close;
  }
  return -1;
}

function isWordChar(char: string): boolean {
  return /[\p{L}\p{N}]/u.test(char);
}

/** Slack's three entities, decoded for display. */
function decode(text: string): string {
  return text.replace(/&(lt|gt|amp);/g, (_, name: string) => (name === "lt" ? "<" : name === "gt" ? ">" : "&"));
}
