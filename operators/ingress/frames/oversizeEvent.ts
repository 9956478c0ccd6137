import type { GatewayAttachment, GatewayEvent } from "../gatewayEvent.js";
import { parseGatewayFrame } from "./gatewayFrames.js";

/** The "not delivered" note's reason for inline bytes set aside because their frame was too big. */
export const FRAME_TOO_LARGE_STATUS = "too_large: the message was over the broker's max_frame_bytes";
/** The same note's reason for inline bytes set aside because the event was too big for the bus (NATS's `max_payload`). */
export const PAYLOAD_TOO_LARGE_STATUS = "too_large: the message was over the NATS server's max_payload";

/** An event with some attachments' inline bytes set aside, and how many. */
export interface InlineDataSetAside {
  readonly event: GatewayEvent;
  readonly attachments: number;
}

/** What became of a frame over the limit: its event without its inline attachments, or nothing. */
export type OversizeEvent =
  | { readonly kind: "event"; readonly event: GatewayEvent; readonly attachments: number }
  | { readonly kind: "rejected"; readonly reason: "too_large"; readonly detail: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const DATA_KEY = Buffer.from("data");
/**
 * What stands in for a value set aside (base64 never holds a NUL; a frame that spells it itself
 * only marks its own attachment). A value shorter than it stays: a few bytes, and what is kept
 * is never longer than the frame.
 */
const SET_ASIDE = "\u0000";
const SET_ASIDE_JSON = Buffer.from(JSON.stringify(SET_ASIDE));

/**
 * An `event.v1` frame over `maxFrameBytes`, kept without its attachments' inline bytes: a gateway
 * inlines media as base64, so one big voice note should cost the user that attachment, not the
 * whole message. Every string value of a `"data"` key is set aside before parsing; the event is
 * kept when the rest fits `maxFrameBytes` and parses, and each attachment whose bytes were set
 * aside gets `status` (the "not delivered" note). Anything else — a hello, an ack, a huge text —
 * stays rejected as `too_large`. One pass, with native searches for quotes: linear in the frame.
 */
export function oversizeEvent(raw: Buffer, maxFrameBytes: number): OversizeEvent {
  const tooLarge: OversizeEvent = { kind: "rejected", reason: "too_large", detail: `${raw.byteLength} bytes > ${maxFrameBytes}` };
  const kept = withoutInlineData(raw, maxFrameBytes);
  if (kept === undefined) return tooLarge;
  const frame = parseGatewayFrame(kept, maxFrameBytes);
  if (frame.kind !== "event") return tooLarge;
  const setAside = setAsideInlineData(frame.event, FRAME_TOO_LARGE_STATUS, (attachment) => attachment.data === SET_ASIDE);
  if (setAside.attachments === 0) return tooLarge;
  return { kind: "event", ...setAside };
}

/**
 * `event` without the inline bytes of the attachments `setAside` picks (by default every one that
 * has some): each keeps its name, type and size and gets `status`, so the agent is told it was not
 * delivered and why. The one form of that note, for a frame too big and an event too big for the bus.
 */
export function setAsideInlineData(
  event: GatewayEvent,
  status: string,
  setAside: (attachment: GatewayAttachment) => boolean = (attachment) => attachment.data !== "",
): InlineDataSetAside {
  let attachments = 0;
  const marked = (event.content.attachments ?? []).map((attachment): GatewayAttachment => {
    if (!setAside(attachment)) return attachment;
    attachments += 1;
    return { ...attachment, data: "", status };
  });
  if (attachments === 0) return { event, attachments };
  return { event: { ...event, content: { ...event.content, attachments: marked } }, attachments };
}

/**
 * The frame's bytes with every `"data": "<string>"` value replaced by `SET_ASIDE`, or undefined
 * once what is kept would exceed `maxFrameBytes`. Outside a string JSON has no backslash, so every
 * quote there opens one; inside, a quote closes it unless an odd run of backslashes precedes it.
 * Each backslash run is counted once, for the quote right after it.
 */
function withoutInlineData(raw: Buffer, maxFrameBytes: number): Buffer | undefined {
  // What is kept is given up on past the limit, and is never longer than the frame: one buffer holds it.
  const kept = Buffer.allocUnsafe(Math.min(maxFrameBytes, raw.byteLength));
  let keptBytes = 0;
  let copiedTo = 0;
  let afterKey = -1; // just past a closed `"data"` string, or -1
  let at = 0;
  for (;;) {
    const open = raw.indexOf(QUOTE, at);
    if (open === -1) break;
    const close = closingQuote(raw, open + 1);
    if (close === -1) break;
    if (afterKey !== -1 && close + 1 - open >= SET_ASIDE_JSON.byteLength && onlyColonBetween(raw, afterKey, open)) {
      if (keptBytes + (open - copiedTo) + SET_ASIDE_JSON.byteLength > maxFrameBytes) return undefined;
      keptBytes += raw.copy(kept, keptBytes, copiedTo, open);
      keptBytes += SET_ASIDE_JSON.copy(kept, keptBytes);
      copiedTo = close + 1;
      afterKey = -1;
    } else {
      afterKey = close - open - 1 === DATA_KEY.byteLength && raw.compare(DATA_KEY, 0, DATA_KEY.byteLength, open + 1, close) === 0 ? close + 1 : -1;
    }
    at = close + 1;
    // Everything before `at` not set aside is kept: past the limit already, nothing later can help.
    if (keptBytes + (at - copiedTo) > maxFrameBytes) return undefined;
  }
  if (keptBytes + (raw.byteLength - copiedTo) > maxFrameBytes) return undefined;
  keptBytes += raw.copy(kept, keptBytes, copiedTo);
  return kept.subarray(0, keptBytes);
}

/** The index of the quote that closes a string whose contents start at `from`, or -1. */
function closingQuote(raw: Buffer, from: number): number {
  for (let at = from; ; ) {
    const quote = raw.indexOf(QUOTE, at);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && raw[quote - backslashes - 1] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** Whether the bytes in [from, to) are one colon amid JSON whitespace: a key and its value. */
function onlyColonBetween(raw: Buffer, from: number, to: number): boolean {
  let colons = 0;
  for (let at = from; at < to; at += 1) {
    const byte = raw[at];
    if (byte === COLON) colons += 1;
    else if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  }
  return colons === 1;
}
