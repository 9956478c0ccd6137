import type { Subscription } from "rxjs";
import { attachmentLine } from "./attachmentLine.js";
import { devEvent, type DevGateway } from "./devGateway.js";

/** Where typed lines come from: a readline interface, or anything that emits `line` the same way. */
export interface LineSource {
  on(event: "line", listener: (line: string) => void): unknown;
}

export interface TerminalOptions {
  readonly gateway: DevGateway;
  readonly lines: LineSource;
  readonly write: (text: string) => void;
  /** Milliseconds, for the `+0.40 s` timings. */
  readonly now: () => number;
  readonly platform?: string;
}

/**
 * OpenAB's fake-gateway console: a plain line is a user message, `/proactive <text>` an
 * unsolicited event, `/id <event_id> [text]` a proactive event with a fixed id (to try triage
 * dedupe). Each reply prints as its own bubble with the time since the message that caused it; a
 * file in it prints as its `📎 name (size)` line, above its caption.
 */
export function runTerminal({ gateway, lines, write, now, platform = "telegram" }: TerminalOptions): Subscription {
  let sentAt = now();
  let bubble = 0;
  const subscription = gateway.received.subscribe((received) => {
    if (received.kind === "other") {
      write(`  frame: ${received.text.slice(0, 200)}\n`);
      return;
    }
    const { frame } = received;
    if (frame.command !== undefined) {
      write(`  command: ${frame.command} ${frame.content.text}\n`);
      return;
    }
    bubble += 1;
    const quote = frame.quote_message_id === undefined ? "" : ` (reply to ${frame.quote_message_id})`;
    const files = (frame.content.attachments ?? []).map(attachmentLine);
    // A file's caption may be empty: then the bubble is the file alone.
    const textLines = [...files, ...(files.length > 0 && frame.content.text === "" ? [] : frame.content.text.split("\n"))];
    write(`◀ bubble #${bubble}${quote} (+${((now() - sentAt) / 1000).toFixed(2)}s)\n`);
    for (const line of textLines) write(`│ ${line}\n`);
    if (textLines.length > 1) write(`└─ one message, ${textLines.length} lines\n`);
  });
  lines.on("line", (line) => {
    const event = eventFor(line.trim(), platform);
    if (event === undefined) return;
    bubble = 0;
    sentAt = now();
    gateway.broadcast(event);
  });
  return subscription;
}

function eventFor(line: string, platform: string): Record<string, unknown> | undefined {
  if (line === "") return undefined;
  const proactiveMatch = /^\/proactive\s+(.*)$/s.exec(line);
  if (proactiveMatch !== null) return devEvent(proactiveMatch[1] ?? "", { proactive: true, platform });
  const idMatch = /^\/id\s+(\S+)(?:\s+(.*))?$/s.exec(line);
  if (idMatch !== null) return devEvent(idMatch[2] ?? "retry", { proactive: true, platform, ...(idMatch[1] === undefined ? {} : { eventId: idMatch[1] }) });
  return devEvent(line, { platform });
}
