import type { GatewayAttachment, GatewayEvent } from "../gatewayEvent.js";

/**
 * OpenClaw's group history: in a group where mentions are required, the messages that did not
 * start a turn are kept and packed into the next turn's prompt. Strings and bounds from the
 * OpenClaw 2026.9.6 build; each is cited where it is defined.
 */
export interface HistoryEntry {
  /** The gateway `message_id` (or `event_id` when empty): used to never keep one twice. */
  readonly messageId: string;
  /** The label shown to the agent. */
  readonly sender: string;
  readonly text: string;
  /** As the gateway sent it, if any. */
  readonly timestamp?: string;
}

// src/auto-reply/reply/history.ts: HISTORY_CONTEXT_MARKER, CURRENT_MESSAGE_MARKER.
const HISTORY_CONTEXT_MARKER = "[Chat messages since your last reply - for context]";
const CURRENT_MESSAGE_MARKER = "[Current message - respond to this]";
// Untrusted lines that read as one of them are quoted (historyPrompt), recognised by these letters.
const MARKER_LETTERS = [HISTORY_CONTEXT_MARKER, CURRENT_MESSAGE_MARKER].map(lettersOf);
// Whatever a reader, or a model, may take for the end of a line: CRLF, LF, CR, VT, FF, NEL, LS, PS.
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

// src/auto-reply/reply/inbound-meta.ts: a history body is cut to MAX_CONTEXT_JSON_STRING_CHARS,
// keeping 60% head and 40% tail around HEAD_TAIL_OMISSION_MARKER (truncateBodyHeadTail).
const MAX_TEXT_CHARS = 2000;
const OMISSION_MARKER = "…[omitted]…";
// src/auto-reply/reply/inbound-meta.ts: a sender is cut to MAX_UNTRUSTED_TRANSCRIPT_FIELD_CHARS
// (truncateUntrustedTranscriptField: 486 units, end-trimmed, then the marker), and an entry without
// one is "unknown" (src/channels/turn/run-channel-turn.ts).
const MAX_SENDER_CHARS = 500;
const SENDER_HEAD_CHARS = 486;
const TRUNCATED_MARKER = "…[truncated]";
const UNKNOWN_SENDER = "unknown";

// src/channels/inbound-event/media.ts: PLURAL_MEDIA_PLACEHOLDER_LABELS.
const PLURAL_LABELS: Readonly<Record<MediaKind, string>> = {
  image: "images",
  video: "videos",
  audio: "audio attachments",
  document: "files",
  sticker: "stickers",
  attachment: "attachments",
};
type MediaKind = "image" | "video" | "audio" | "document" | "sticker" | "attachment";

/**
 * The entry a gateway event becomes: sender labelled from display_name, else sender_name, else
 * sender id; text = content.text, or OpenClaw's `<media:…>` placeholder for the attachments when
 * the text is blank (Telegram's `historyBody`, `extensions/telegram/src/bot-message-context.body.ts`),
 * cut to OpenClaw's bound.
 */
export function historyEntry(event: GatewayEvent): HistoryEntry {
  const { text, attachments = [] } = event.content;
  return {
    messageId: event.message_id !== "" ? event.message_id : event.event_id,
    sender: senderLabel(event),
    text: boundedText(isBlank(text) && attachments.length > 0 ? mediaPlaceholder(attachments) : text),
    ...(event.timestamp !== "" ? { timestamp: event.timestamp } : {}),
  };
}

/**
 * The history after one more entry, keeping at most `limit` (oldest dropped first); limit 0 → [];
 * an entry whose messageId is already kept is not added again, nor is one with a blank text
 * (OpenClaw records none). Pure: returns a new array.
 */
export function appendHistory(history: readonly HistoryEntry[], entry: HistoryEntry, limit: number): HistoryEntry[] {
  const cap = Math.floor(limit);
  if (!(cap > 0)) return [];
  const skip = isBlank(entry.text) || history.some((kept) => kept.messageId === entry.messageId);
  const next = skip ? [...history] : [...history, entry];
  return next.length > cap ? next.slice(next.length - cap) : next;
}

/** The history after a turn packed `packed` of its entries: those removed (by messageId), anything that arrived since kept. */
export function withoutPacked(history: readonly HistoryEntry[], packed: readonly HistoryEntry[]): HistoryEntry[] {
  const gone = new Set(packed.map((entry) => entry.messageId));
  return history.filter((entry) => !gone.has(entry.messageId));
}

/**
 * The text block that heads a turn's prompt, as OpenClaw's `buildHistoryContext`
 * (`src/auto-reply/reply/history.ts`) writes it before the current message: the history marker,
 * one `sender: text` per entry (`src/gateway/agent-prompt.ts`), a blank line, then the
 * current-message marker. undefined for an empty history.
 *
 * The senders and texts are untrusted: every line break in them becomes `\n`, and a line of theirs
 * that reads as one of the two markers is quoted (`> `), so no history line can pass for the
 * block's structure (a "current message" of the sender's making).
 */
export function historyPrompt(history: readonly HistoryEntry[]): string | undefined {
  const lines = history
    .filter((entry) => !isBlank(entry.text))
    .flatMap((entry) => `${oneLine(entry.sender)}: ${boundedText(entry.text)}`.split(LINE_BREAK).map(quotedIfMarker));
  if (lines.length === 0) return undefined;
  return [HISTORY_CONTEXT_MARKER, lines.join("\n"), "", CURRENT_MESSAGE_MARKER].join("\n");
}

/**
 * A line whose letters and digits begin as a marker's do — whatever the case, spacing, brackets,
 * dashes, markup or compatibility forms (`**[CURRENT MESSAGE – respond to this]**`, fullwidth
 * brackets) — quoted so it reads as quoted text, never as a marker.
 */
function quotedIfMarker(line: string): string {
  const letters = lettersOf(line);
  return MARKER_LETTERS.some((marker) => letters.startsWith(marker)) ? `> ${line}` : line;
}

/** A text's letters and digits only, compatibility forms folded (NFKC) and lower-cased: what a marker is recognised by. */
function lettersOf(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

function senderLabel({ sender }: GatewayEvent): string {
  const label = [sender.display_name, sender.name, sender.id].find((candidate) => !isBlank(candidate));
  if (label === undefined) return UNKNOWN_SENDER;
  const bounded = label.length <= MAX_SENDER_CHARS ? label : `${prefixOf(label, SENDER_HEAD_CHARS).trimEnd()}${TRUNCATED_MARKER}`;
  return oneLine(bounded).trim();
}

/** One line per entry: a name with a line break (NEL too, which `\s` is not) must not start a line of its own. */
function oneLine(label: string): string {
  return label.replace(/[\s\u0085]+/g, " ");
}

/** OpenClaw's head-and-tail cut: at most MAX_TEXT_CHARS UTF-16 units, never splitting a surrogate pair. */
function boundedText(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) return text;
  const available = MAX_TEXT_CHARS - OMISSION_MARKER.length;
  const head = Math.floor(available * 0.6);
  return `${prefixOf(text, head)}${OMISSION_MARKER}${suffixOf(text, available - head)}`;
}

/** OpenClaw's `formatMediaPlaceholderText`: one tag for all the attachments, with a count when several. */
function mediaPlaceholder(attachments: readonly GatewayAttachment[]): string {
  const kinds = attachments.map(mediaKind);
  const first = kinds[0] ?? "attachment";
  const kind = kinds.every((candidate) => candidate === first) ? first : kinds.includes("attachment") ? "attachment" : "document";
  const tag = `<media:${kind}>`;
  return kinds.length === 1 ? tag : `${tag} (${kinds.length} ${PLURAL_LABELS[kind]})`;
}

/** The gateway's type when it is one of OpenClaw's kinds, else the kind of its MIME type (`mediaKindFromMime`). */
function mediaKind(attachment: GatewayAttachment): MediaKind {
  switch (attachment.type) {
    case "image":
    case "video":
    case "audio":
    case "document":
    case "sticker":
      return attachment.type;
  }
  const semicolon = attachment.mime_type.indexOf(";");
  const mime = (semicolon < 0 ? attachment.mime_type : attachment.mime_type.slice(0, semicolon)).trim().toLowerCase();
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("audio/")) return "audio";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("text/") || mime.startsWith("application/")) return "document";
  return "attachment";
}

function isBlank(text: string): boolean {
  return text.trim() === "";
}

function prefixOf(text: string, length: number): string {
  const end = isSurrogatePair(text, length) ? length - 1 : length;
  return text.slice(0, end);
}

function suffixOf(text: string, length: number): string {
  const start = text.length - length;
  return text.slice(isSurrogatePair(text, start) ? start + 1 : start);
}

/** Whether a cut at `index` falls between the two halves of a surrogate pair. */
function isSurrogatePair(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}
