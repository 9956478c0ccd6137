import { afterEach, describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { TelegramPort } from "../../../src/platforms/telegram/index.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, TOKEN, until, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { telegramConfig } from "./telegramTestConfig.js";

// The Telegram port's poller as a receiver a lease starts and stops (one edge of several polls a
// bot), against the fake Bot API in this process. The lease itself: test/scale/receiverLease.test.ts;
// edges over nats-server: test/e2e/telegramScaleOut.test.ts.

const fake = useFakeBotApi();
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function portOf(mode: "polling" | "webhook" = "polling") {
  const { logger, records } = captureLogs();
  const port = new TelegramPort({ config: telegramConfig(fake.api, mode === "webhook" ? { mode, webhook_listen: "127.0.0.1:0", secret_token: "s3cret" } : {}), logger, backoff: { initialMs: 50, maxMs: 200, unauthorizedMs: 200 } });
  ports.push(port);
  const events: GatewayEvent[] = [];
  port.events.subscribe((event) => {
    events.push(event);
    port.settled(event);
  });
  return { port, events, records };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("TelegramPort: the poller as a receiver", () => {
  it("is keyed by the bot's id, never the token's secret part; a webhook has no receiver", () => {
    const { port } = portOf();
    expect(port.receiver?.key).toBe(`telegram.${TOKEN.split(":")[0]}`);
    expect(port.receiver?.key).not.toContain(TOKEN.split(":")[1]);
    expect(portOf("webhook").port.receiver).toBeUndefined();
  });

  it("standing by it never polls, and shows connected once the bot answered getMe: its sends work", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port } = portOf();
    port.start({ receive: false });
    await until(() => port.isConnected);
    expect(fake.api.callsOf("getMe")).toHaveLength(1);
    fake.api.from(alice).text(dm.id, "hello");
    await sleep(300);
    expect(fake.api.callsOf("getUpdates")).toEqual([]);
    await port.send({ reply_to: "tg1", platform: "telegram", channel: { id: String(dm.id) }, content: { type: "text", text: "from the stand-by edge" } });
    expect(fake.api.botTexts(dm.id)).toEqual(["from the stand-by edge"]);
  });

  it("polls from startReceiving; stopReceiving(0) stops at once with no last getUpdates, and it stays connected standing by", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf();
    port.start({ receive: false });
    await until(() => port.isConnected);
    port.receiver!.startReceiving();
    fake.api.from(alice).text(dm.id, "one");
    await until(() => events.length === 1);
    await until(() => fake.api.updates.pollersInFlight === 1 && fake.api.updates.pending().length === 0);
    const polls = fake.api.callsOf("getUpdates").length;
    await port.receiver!.stopReceiving(0);
    // The long poll was cut: the fake sees its caller hang up.
    await until(() => fake.api.updates.pollersInFlight === 0, 1_000);
    expect(fake.api.callsOf("getUpdates")).toHaveLength(polls);
    expect(port.isConnected).toBe(true);
  });

  it("stopReceiving with time left confirms what was settled since the last poll, within that time", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = portOf();
    port.start({ receive: false });
    port.receiver!.startReceiving();
    await until(() => fake.api.updates.pollersInFlight === 1);
    const sent = fake.api.from(alice).text(dm.id, "one");
    await until(() => events.length === 1);
    // A stop right after the batch settled: the next poll may not have gone out yet, the stop's one confirms it.
    await port.receiver!.stopReceiving(1_000);
    expect(fake.api.updates.pending()).toEqual([]);
    expect(fake.api.callsOf("getUpdates").at(-1)?.params).toMatchObject({ offset: sent.update_id + 1 });
  });

  it("two ports handing the receiver back and forth never poll at once, and every update is taken once", async () => {
    const { alice, dm } = someChats(fake.api);
    const a = portOf();
    const b = portOf();
    a.port.start({ receive: false });
    b.port.start({ receive: false });
    let holder = a;
    holder.port.receiver!.startReceiving();
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 5; i++) fake.api.from(alice).text(dm.id, `m${round}.${i}`);
      await sleep(50);
      await holder.port.receiver!.stopReceiving(round % 2 === 0 ? 500 : 0);
      holder = holder === a ? b : a;
      holder.port.receiver!.startReceiving();
    }
    await until(() => fake.api.updates.pending().length === 0);
    const ids = [...a.events, ...b.events].map((event) => event.event_id);
    expect(new Set(ids).size).toBe(30);
    // A stop with no last confirmation hands its settled updates to the next poller: they come twice, and their msg-ids collapse them.
    expect(ids.length).toBeGreaterThanOrEqual(30);
    expect(fake.api.maxConcurrentPollers).toBe(1);
  });

  it("two deployments polling one bot by mistake (each its own holder): Telegram's 409 Conflict, logged by both as reason conflict", async () => {
    const a = portOf();
    const b = portOf();
    a.port.start();
    b.port.start();
    const conflicts = (records: typeof a.records) => records.filter((r) => r.msg === "telegram polling failed" && r.reason === "conflict");
    await until(() => conflicts(a.records).length > 0 && conflicts(b.records).length > 0, 10_000);
    expect(conflicts(a.records)[0]).toMatchObject({ status: 409 });
    expect(fake.api.updates.conflicts).toBeGreaterThan(0);
  });
});
