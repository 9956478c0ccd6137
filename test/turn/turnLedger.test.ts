import { concat, concatMap, defer, firstValueFrom, lastValueFrom, map, of, throwError, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { replyMessage } from "../../src/turn/delivery/replyMessage.js";
import { AlreadyDeliveredError } from "../../src/turn/errors.js";
import { EXPIRED_QUESTION_TEXT } from "../../src/turn/stalePlaceholders.js";
import {
  completeInLedger,
  ledgerKey,
  ledgerSend,
  ledgerVerdict,
  maxAttempts,
  RECOVERED_REPLY_MARKER,
} from "../../src/turn/turnLedger.js";
import type { Send } from "../../src/pipeline/send.js";
import { MemoryDeliveryLedger, type DeliveryLedger, type LedgerRecord } from "../../src/state/deliveryLedger.js";
import { StateStoreError } from "../../src/state/errors.js";
import { SendError } from "../../src/wire/index.js";
import { captureLogs } from "../helpers/logCapture.js";
import { gatewayEvent } from "../helpers/events.js";
import { countingLedger } from "../helpers/ledgers.js";

const started = (attempts: number, delivered: number): LedgerRecord => ({ state: "started", attempts, delivered, updatedAt: 1 });
const complete: LedgerRecord = { state: "complete", attempts: 1, delivered: 1, updatedAt: 1 };

describe("ledgerVerdict", () => {
  it("runs a first delivery, re-runs an interrupted one (marked when it had begun sending), gives up after the marked re-run or maxAttempts deliveries", () => {
    expect(ledgerVerdict(undefined, 1)).toBe("run");
    expect(ledgerVerdict(undefined, 2)).toBe("rerun"); // killed before its first send: no record
    expect(ledgerVerdict(undefined, maxAttempts)).toBe("rerun");
    expect(ledgerVerdict(undefined, maxAttempts + 1)).toBe("exhausted"); // never sends, keeps coming back
    expect(ledgerVerdict(started(1, 0), 2)).toBe("rerun_marked"); // died after `started`, before the ack was recorded
    expect(ledgerVerdict(started(1, 2), 2)).toBe("rerun_marked");
    expect(ledgerVerdict(started(1, 2), 3)).toBe("rerun_marked"); // the marked re-run died before its own first send
    expect(ledgerVerdict(started(2, 0), 3)).toBe("exhausted"); // the marked re-run began sending too
    expect(ledgerVerdict(started(1, 1), maxAttempts + 1)).toBe("exhausted");
    expect(ledgerVerdict(complete, 2)).toBe("done");
    expect(ledgerVerdict(complete, maxAttempts + 1)).toBe("done");
  });
});

describe("ledgerSend", () => {
  const event = gatewayEvent({ event_id: "a" });
  const key = ledgerKey(event);
  /** A gateway that acks every message at once, noting the ledger's record as each send leaves. */
  function gateway(ledger: DeliveryLedger) {
    const sent: { text: string; record: LedgerRecord | undefined }[] = [];
    const send: Send = (message) =>
      ledger.read(key).pipe(
        map((record) => {
          sent.push({ text: message.content.text, record });
          return { messageId: `m${sent.length}` };
        }),
      );
    return { send, sent };
  }
  const options = (ledger: DeliveryLedger, marked = false) => ({ ledger, keys: [key], now: () => 5, marked, messageLimit: () => 4_000, logger: captureLogs().logger });
  const reply = (text: string) => replyMessage(event, text, undefined);

  it("records the attempt before the first message leaves, once, and each ack after it", async () => {
    const { ledger, ops } = countingLedger();
    const { send, sent } = gateway(ledger);
    const turnSend = ledgerSend(send, options(ledger));
    await lastValueFrom(concat(turnSend(reply("one")), turnSend(reply("two"))));
    expect(sent).toEqual([
      { text: "one", record: { state: "started", attempts: 1, delivered: 0, updatedAt: 5 } },
      { text: "two", record: { state: "started", attempts: 1, delivered: 1, updatedAt: 5 } },
    ]);
    expect(ops.filter((op) => !op.startsWith("read"))).toEqual([`begin ${key}`, `delivered ${key}`, `delivered ${key}`]);
  });

  it("a turn that sends nothing writes once: complete, creating the record", async () => {
    const { ledger, ops } = countingLedger();
    ledgerSend(gateway(ledger).send, options(ledger)); // the turn never sends
    await lastValueFrom(completeInLedger([key], { ledger, now: 6, logger: () => captureLogs().logger }));
    expect(ops).toEqual([`complete ${key}`]);
    await expect(firstValueFrom(ledger.read(key))).resolves.toEqual({ state: "complete", attempts: 0, delivered: 0, updatedAt: 6 });
  });

  it("sends nothing when the attempt cannot be recorded: the send fails with the store's error (the turn is deferred)", async () => {
    const memory = new MemoryDeliveryLedger();
    let beginFails = true;
    const flaky: DeliveryLedger = {
      read: (k) => memory.read(k),
      begin: (k, now) => (beginFails ? throwError(() => new StateStoreError("ledger", "begin", k)) : memory.begin(k, now)),
      delivered: (k, count, now) => memory.delivered(k, count, now),
      complete: (k, now) => memory.complete(k, now),
    };
    const { send, sent } = gateway(memory);
    const turnSend = ledgerSend(send, options(flaky));
    await expect(lastValueFrom(turnSend(reply("one")))).rejects.toBeInstanceOf(StateStoreError);
    expect(sent).toEqual([]);
    beginFails = false; // a later send of the same turn tries the write again
    await lastValueFrom(turnSend(reply("two")));
    expect(sent.map(({ text, record }) => [text, record?.attempts])).toEqual([["two", 1]]);
  });

  it("refuses every send of a turn whose event the ledger says is complete (re-sent after the duplicate window)", async () => {
    const memory = new MemoryDeliveryLedger();
    await lastValueFrom(memory.complete(key, 1), { defaultValue: undefined });
    const { send, sent } = gateway(memory);
    const turnSend = ledgerSend(send, options(memory));
    await expect(lastValueFrom(turnSend(reply("one")))).rejects.toBeInstanceOf(AlreadyDeliveredError);
    await expect(lastValueFrom(turnSend(reply("⚠️ error")))).rejects.toBeInstanceOf(AlreadyDeliveredError);
    expect(sent).toEqual([]);
    await expect(firstValueFrom(memory.read(key))).resolves.toEqual({ state: "complete", attempts: 0, delivered: 0, updatedAt: 1 });
  });

  it("marks the first message when admitted marked, or when the attempt's begin finds an earlier one that began sending", async () => {
    for (const [marked, prior] of [[true, false], [false, true]] as const) {
      const memory = new MemoryDeliveryLedger();
      if (prior) await lastValueFrom(memory.begin(key, 1));
      const { send, sent } = gateway(memory);
      const turnSend = ledgerSend(send, options(memory, marked));
      await lastValueFrom(concat(turnSend(reply("one")), turnSend(reply("two"))));
      expect(sent.map(({ text }) => text)).toEqual([`${RECOVERED_REPLY_MARKER}\n\none`, "two"]);
    }
  });

  it("logs a delivered write that fails and delivers on", async () => {
    const memory = new MemoryDeliveryLedger();
    const failing: DeliveryLedger = { read: (k) => memory.read(k), begin: (k, n) => memory.begin(k, n), complete: (k, n) => memory.complete(k, n), delivered: () => throwError(() => new StateStoreError("ledger", "delivered", key)) };
    const { logger, records } = captureLogs();
    const { send, sent } = gateway(memory);
    const receipts = await lastValueFrom(concat(ledgerSend(send, { ...options(failing), logger })(reply("one"))).pipe(toArray()));
    expect(receipts).toEqual([{ messageId: "m1" }]);
    expect(sent).toHaveLength(1);
    expect(records).toMatchObject([{ msg: "delivery ledger write failed", reason: "ledger_write_failed", delivered: 1 }]);
  });
});

describe("ledgerSend: placeholders and the marker (a streaming reply re-run after its worker died)", () => {
  const event = gatewayEvent({ event_id: "a", channel: { id: "chat-9", type: "dm" } });
  const key = ledgerKey(event);
  const reply = (text: string) => replyMessage(event, text, undefined);
  const options = (ledger: DeliveryLedger, marked = false, limit = 4_000) => ({ ledger, keys: [key], now: () => 5, marked, messageLimit: () => limit, logger: captureLogs().logger });
  /** A gateway naming each message `gw-<n>`; `fails` refuses the sends it matches with a SendError. */
  function gateway(fails: (message: OutboundMessage) => boolean = () => false) {
    const sent: OutboundMessage[] = [];
    const send: Send = (message) =>
      defer(() => {
        sent.push(message);
        return fails(message) ? throwError(() => new SendError("not_found", "no such message")) : of({ messageId: `gw-${sent.length}` });
      });
    return { send, sent };
  }

  it("records the id of a message sent as a placeholder with its ack, before the receipt is passed on", async () => {
    const memory = new MemoryDeliveryLedger();
    const { send } = gateway();
    const turnSend = ledgerSend(send, options(memory));
    const seen: (LedgerRecord | undefined)[] = [];
    await lastValueFrom(turnSend(reply("…"), { placeholder: true }).pipe(concatMap(() => memory.read(key)), map((record) => seen.push(record))));
    expect(seen).toEqual([{ state: "started", attempts: 1, delivered: 1, updatedAt: 5, placeholders: ["gw-1"] }]);
    await lastValueFrom(turnSend(reply("more")));
    await expect(firstValueFrom(memory.read(key))).resolves.toMatchObject({ delivered: 2, placeholders: ["gw-1"] });
  });

  it("records nothing for a receipt that names no message (a legacy gateway's gw_sent)", async () => {
    const memory = new MemoryDeliveryLedger();
    const legacy: Send = () => of({ messageId: "gw_sent" });
    await lastValueFrom(ledgerSend(legacy, options(memory))(reply("…"), { placeholder: true }));
    await expect(firstValueFrom(memory.read(key))).resolves.toEqual({ state: "started", attempts: 1, delivered: 1, updatedAt: 5 });
  });

  it("keeps no placeholder id a gateway made too long to record, and says so", async () => {
    const memory = new MemoryDeliveryLedger();
    const { logger, records } = captureLogs();
    const huge: Send = () => of({ messageId: "9".repeat(10_000) });
    await lastValueFrom(ledgerSend(huge, { ...options(memory), logger })(reply("…"), { placeholder: true }));
    await expect(firstValueFrom(memory.read(key))).resolves.toEqual({ state: "started", attempts: 1, delivered: 1, updatedAt: 5 });
    expect(records).toMatchObject([{ msg: "streaming message not recorded in the delivery ledger", reason: "placeholder_id_too_long", chars: 10_000 }]);
  });

  it("a re-run deletes the placeholders earlier attempts recorded, in its conversation, before its first message leaves", async () => {
    const memory = new MemoryDeliveryLedger();
    // The first attempt posted its placeholder and died mid-stream.
    const first = gateway();
    await lastValueFrom(ledgerSend(first.send, options(memory))(reply("…"), { placeholder: true }));
    const { logger, records } = captureLogs();
    const rerun = gateway();
    const turnSend = ledgerSend(rerun.send, { ...options(memory, true), logger });
    const receipt = await lastValueFrom(turnSend(reply("…"), { placeholder: true }));
    expect(rerun.sent).toEqual([
      { reply_to: "gw-1", platform: "telegram", channel: { id: "chat-9" }, content: { type: "text", text: "" }, command: "delete_message" },
      reply(`${RECOVERED_REPLY_MARKER}\n\n…`),
    ]);
    // The re-run's own placeholder is recorded beside the stale one; the receipt says it went out marked.
    expect(receipt).toEqual({ messageId: "gw-2", marker: RECOVERED_REPLY_MARKER });
    await expect(firstValueFrom(memory.read(key))).resolves.toMatchObject({ attempts: 2, placeholders: ["gw-1", "gw-2"] });
    expect(records).toMatchObject([{ msg: "interrupted attempt's streaming message deleted", reason: "stale_placeholder", deleted: 1, total: 1 }]);
    // Deleted once: later sends go straight out.
    await lastValueFrom(turnSend(reply("next")));
    expect(rerun.sent.map((message) => message.command ?? message.content.text)).toEqual(["delete_message", `${RECOVERED_REPLY_MARKER}\n\n…`, "next"]);
  });

  it("a stale placeholder the gateway will not delete is logged, and the reply still goes out", async () => {
    const memory = new MemoryDeliveryLedger();
    await lastValueFrom(concat(memory.begin(key, 1), memory.delivered(key, 1, 1, { id: "gone", kind: "placeholder" })), { defaultValue: undefined });
    const { logger, records } = captureLogs();
    const rerun = gateway((message) => message.command === "delete_message");
    await lastValueFrom(ledgerSend(rerun.send, { ...options(memory, true), logger })(reply("answer")));
    expect(rerun.sent.map((message) => message.command ?? message.content.text)).toEqual(["delete_message", `${RECOVERED_REPLY_MARKER}\n\nanswer`]);
    expect(records).toMatchObject([{ msg: "interrupted attempt's streaming message not deleted", reason: "stale_placeholder_delete_failed", code: "not_found" }]);
  });

  it("records a question's id; the re-run marks the interrupted attempt's question expired, its buttons removed, before anything of its own", async () => {
    const memory = new MemoryDeliveryLedger();
    const first = gateway();
    await lastValueFrom(ledgerSend(first.send, options(memory, false))(reply("❓ Permission"), { question: true }));
    await expect(firstValueFrom(memory.read(key))).resolves.toMatchObject({ delivered: 1, questions: ["gw-1"] });
    const { logger, records } = captureLogs();
    const rerun = gateway();
    await lastValueFrom(ledgerSend(rerun.send, { ...options(memory, true), logger })(reply("answer")));
    expect(rerun.sent[0]).toMatchObject({ command: "edit_message", reply_to: "gw-1", content: { text: EXPIRED_QUESTION_TEXT }, choices: [] });
    expect(rerun.sent[1]?.content.text).toBe(`${RECOVERED_REPLY_MARKER}\n\nanswer`);
    expect(records).toMatchObject([{ msg: "interrupted attempt's question marked expired", reason: "stale_question", expired: 1, total: 1 }]);
  });

  it("a stale question the platform will not edit is logged, and the reply still goes out", async () => {
    const memory = new MemoryDeliveryLedger();
    await lastValueFrom(concat(memory.begin(key, 1), memory.delivered(key, 1, 1, { id: "q-gone", kind: "question" })), { defaultValue: undefined });
    const { logger, records } = captureLogs();
    const rerun = gateway((message) => message.command === "edit_message");
    await lastValueFrom(ledgerSend(rerun.send, { ...options(memory, true), logger })(reply("answer")));
    expect(rerun.sent.map((message) => message.command ?? message.content.text)).toEqual(["edit_message", `${RECOVERED_REPLY_MARKER}\n\nanswer`]);
    expect(records).toMatchObject([{ msg: "interrupted attempt's question not marked expired", reason: "stale_question_expire_failed" }]);
  });

  it("a marker alone before an overflowing message is no placeholder, and the message's receipt names no marker", async () => {
    const memory = new MemoryDeliveryLedger();
    const { send, sent } = gateway();
    const long = "x".repeat(3_990);
    const receipt = await lastValueFrom(ledgerSend(send, options(memory, true))(reply(long), { placeholder: true }));
    expect(sent.map((message) => message.content.text)).toEqual([RECOVERED_REPLY_MARKER, long]);
    expect(receipt).toEqual({ messageId: "gw-2" });
    await expect(firstValueFrom(memory.read(key))).resolves.toMatchObject({ delivered: 2, placeholders: ["gw-2"] });
  });

  it("a marked send that fails leaves the marker for the next message", async () => {
    const memory = new MemoryDeliveryLedger();
    let failures = 1;
    const { send, sent } = gateway(() => failures-- > 0);
    const turnSend = ledgerSend(send, options(memory, true));
    await expect(lastValueFrom(turnSend(reply("…"), { placeholder: true }))).rejects.toBeInstanceOf(SendError);
    await expect(lastValueFrom(turnSend(reply("the reply")))).resolves.toEqual({ messageId: "gw-2", marker: RECOVERED_REPLY_MARKER });
    expect(sent.map((message) => message.content.text)).toEqual([`${RECOVERED_REPLY_MARKER}\n\n…`, `${RECOVERED_REPLY_MARKER}\n\nthe reply`]);
  });
});

describe("completeInLedger", () => {
  it("marks every key complete and emits once", async () => {
    const { ledger, ops } = countingLedger();
    await expect(lastValueFrom(completeInLedger(["a", "b"], { ledger, now: 3, logger: () => captureLogs().logger }).pipe(toArray()))).resolves.toEqual([undefined]);
    expect(ops).toEqual(["complete a", "complete b"]);
  });

  it("logs a failed write and still emits and completes", async () => {
    const failing = { ...countingLedger().ledger, complete: () => throwError(() => new StateStoreError("ledger", "complete", "a")) };
    const { logger, records } = captureLogs();
    await expect(lastValueFrom(completeInLedger(["a"], { ledger: failing, now: 3, logger: () => logger }).pipe(toArray()))).resolves.toEqual([undefined]);
    expect(records).toMatchObject([{ msg: "delivery ledger write failed", reason: "ledger_write_failed" }]);
  });

  it("emits at once for no keys", () => {
    const seen: unknown[] = [];
    completeInLedger([], { ledger: new MemoryDeliveryLedger(), now: 1, logger: () => captureLogs().logger }).subscribe({ next: () => seen.push("v"), complete: () => seen.push("|") });
    expect(seen).toEqual(["v", "|"]);
  });
});
