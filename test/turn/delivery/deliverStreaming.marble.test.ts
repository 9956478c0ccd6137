import { concat, defer, lastValueFrom, of, throwError, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../operators/delivery/agentEvent.js";
import type { OutboundMessage, SendReceipt } from "../../../operators/delivery/outboundMessage.js";
import { deliverStreaming } from "../../../src/turn/delivery/deliverStreaming.js";
import type { TurnContext } from "../../../src/turn/turn.js";
import { ledgerKey, ledgerSend, RECOVERED_REPLY_MARKER } from "../../../src/turn/turnLedger.js";
import { resolveConfig } from "../../../src/config/index.js";
import { MemoryDeliveryLedger } from "../../../src/state/deliveryLedger.js";
import { SendError } from "../../../src/wire/index.js";
import { gatewayEvent } from "../../helpers/events.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { testScheduler } from "../../helpers/marbles.js";

// A streamed reply through the turn's ledger-keeping send, in virtual time: the placeholder's id
// goes into the delivery ledger, and a recovered re-run's marker stays on the message through every
// edit, the final one included (it used to be erased by the first edit).

const config = resolveConfig({});
const event = gatewayEvent({ event_id: "e1" });
const key = ledgerKey(event);
const text = (chunk: string): AgentEvent => ({ type: "text", text: chunk });
const end: AgentEvent = { type: "end", stopReason: "end_turn" };
const marked = (body: string) => `${RECOVERED_REPLY_MARKER}\n\n${body}`;

/** What the gateway saw: when, and the frame in short (`post:…`, `edit <id>:…`, `delete <id>`). */
type Seen = [number, string];

/** A context whose send is `ledgerSend` over `ledger` and a gateway naming each message `gw-<n>`; `failEdit` refuses the edits it matches. */
function streamingContext(
  scheduler: TurnContext["scheduler"],
  ledger: MemoryDeliveryLedger,
  options: { readonly marked: boolean; readonly limit?: number; readonly failEdit?: (message: OutboundMessage) => boolean },
): { context: TurnContext; seen: Seen[] } {
  const seen: Seen[] = [];
  let posted = 0;
  const gateway = (message: OutboundMessage): Observable<SendReceipt> =>
    defer(() => {
      if (message.command === "edit_message" && options.failEdit?.(message) === true) return throwError(() => new SendError("not_found", "no such message"));
      seen.push([scheduler.now(), message.command === undefined ? `post:${message.content.text}` : `${message.command === "edit_message" ? "edit" : "delete"} ${message.reply_to}${message.command === "edit_message" ? `:${message.content.text}` : ""}`]);
      return of({ messageId: message.command === undefined ? `gw-${++posted}` : "gw_sent" });
    });
  const limit = options.limit ?? 4096;
  const { logger } = captureLogs();
  const send = ledgerSend(gateway, { ledger, keys: [key], now: () => scheduler.now(), marked: options.marked, messageLimit: () => limit, logger });
  return { context: { send, sendStatus: gateway, scheduler, logger, messageLimit: () => limit }, seen };
}

/** The first attempt's record: it began, posted placeholder `gw-old` and died. */
async function interruptedLedger(): Promise<MemoryDeliveryLedger> {
  const ledger = new MemoryDeliveryLedger();
  await lastValueFrom(concat(ledger.begin(key, 1), ledger.delivered(key, 1, 2, { id: "gw-old", kind: "placeholder" })), { defaultValue: undefined });
  return ledger;
}

describe("deliverStreaming through the delivery ledger", () => {
  it("a first attempt records its placeholder's id, and streams as before (no marker)", async () => {
    const scheduler = testScheduler();
    const ledger = new MemoryDeliveryLedger();
    const { context, seen } = streamingContext(scheduler, ledger, { marked: false });
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("100ms a 1899ms b 499ms (e|)", { a: text("Hello"), b: text(", world"), e: end });
      expectObservable(events.pipe(deliverStreaming(event, context, config, { placeholder: true }))).toBe("2500ms |");
    });
    expect(seen).toEqual([
      [0, "post:…"],
      [1500, "edit gw-1:Hello"],
      [2500, "edit gw-1:Hello, world"],
    ]);
    await expect(lastValueFrom(ledger.read(key))).resolves.toMatchObject({ state: "started", placeholders: ["gw-1"] });
  });

  it("a re-run deletes the placeholder its predecessor left, and keeps the marker on every edit, the final one included", async () => {
    const scheduler = testScheduler();
    const ledger = await interruptedLedger();
    const { context, seen } = streamingContext(scheduler, ledger, { marked: true });
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("100ms a 1899ms b 499ms (e|)", { a: text("Hello"), b: text(", world"), e: end });
      expectObservable(events.pipe(deliverStreaming(event, context, config, { placeholder: true }))).toBe("2500ms |");
    });
    expect(seen).toEqual([
      [0, "delete gw-old"],
      [0, `post:${marked("…")}`],
      [1500, `edit gw-1:${marked("Hello")}`],
      [2500, `edit gw-1:${marked("Hello, world")}`],
    ]);
    await expect(lastValueFrom(ledger.read(key))).resolves.toMatchObject({ attempts: 2, placeholders: ["gw-old", "gw-1"] });
  });

  it("a final reply that leaves no room for the marker: the message is edited to the marker alone, the reply follows whole", async () => {
    const scheduler = testScheduler();
    const { context, seen } = streamingContext(scheduler, await interruptedLedger(), { marked: true, limit: 200 });
    const reply = "word ".repeat(30).trim(); // 149 characters: fits the limit, not beside the marker
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<AgentEvent>("100ms a 99ms (e|)", { a: text(reply), e: end }).pipe(deliverStreaming(event, context, config, { placeholder: true }))).toBe("200ms |");
    });
    expect(seen).toEqual([
      [0, "delete gw-old"],
      [0, `post:${marked("…")}`],
      [200, `edit gw-1:${RECOVERED_REPLY_MARKER}`],
      [200, `post:${reply}`],
    ]);
  });

  it("while streaming, a long text shows its tail under the marker, within the platform limit", () => {
    const scheduler = testScheduler();
    const { context, seen } = streamingContext(scheduler, new MemoryDeliveryLedger(), { marked: true, limit: 400 });
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(cold<AgentEvent>("100ms a 1599ms (e|)", { a: text(`${"a".repeat(600)}END`), e: end }).pipe(deliverStreaming(event, context, config, { placeholder: true }))).toBe(
        "1700ms |",
      );
    });
    const [, edit] = seen[1] as Seen;
    expect(edit.startsWith(`edit gw-1:${marked("…a")}`)).toBe(true);
    expect(edit.endsWith("aEND")).toBe(true);
    expect([...edit.slice("edit gw-1:".length)].length).toBeLessThanOrEqual(400);
  });

  it("an edit the gateway refuses: the marked message is deleted and the reply goes out fresh, the marker on its first message", async () => {
    const scheduler = testScheduler();
    const { context, seen } = streamingContext(scheduler, await interruptedLedger(), { marked: true, failEdit: () => true });
    scheduler.run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("100ms a 1899ms (e|)", { a: text("Hello"), e: end });
      expectObservable(events.pipe(deliverStreaming(event, context, config, { placeholder: true }))).toBe("2000ms |");
    });
    expect(seen).toEqual([
      [0, "delete gw-old"],
      [0, `post:${marked("…")}`],
      [2000, "delete gw-1"],
      [2000, `post:${marked("Hello")}`],
    ]);
  });
});
