import { afterEach, describe, expect, it } from "vitest";
import { concatMap, defer, delay, map, NEVER, of, timer, type Subscription } from "rxjs";
import { keywordFilter } from "../../docs/examples/keywordFilter.js";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { Broker } from "../../src/broker/broker.js";
import { createBroker } from "../../src/broker/createBroker.js";
import { BrokerStoppedError } from "../../src/broker/errors.js";
import type { TurnHandler } from "../../src/turn/turn.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { ConfigError, resolveConfig } from "../../src/config/index.js";
import { StageError } from "../../src/pipeline/errors.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { subjects } from "../../src/wire/index.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";

const names = subjects("turnstream");

/** An echo agent: replies "echo: <text>" to the event's conversation. */
const echo: TurnHandler = ({ event }, { send }) =>
  send({
    reply_to: event.event_id,
    platform: event.platform,
    channel: { id: event.channel.id },
    content: { type: "text", text: `echo: ${event.content.text}` },
  });

/** Plays the edge's part on the send subject: records each message and acks it like the gateway would. */
function gatewayEdge(bus: MemoryBus): { sent: OutboundMessage[]; subscription: Subscription } {
  const sent: OutboundMessage[] = [];
  const subscription = bus.subscribe<OutboundMessage>(names.sends, { queue: names.sendQueue }).subscribe((m) => {
    sent.push(m.data);
    m.respond({ ok: true, messageId: `gw-${sent.length}` });
  });
  return { sent, subscription };
}

const until = async (check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

let broker: Broker | undefined;
afterEach(async () => {
  await broker?.stop({ graceMs: 0 });
  broker = undefined;
});

function start(options: Parameters<typeof createBroker>[0] = {}) {
  const bus = new MemoryBus();
  const { logger, records } = captureLogs();
  broker = createBroker({ bus, logger, ...options });
  const edge = gatewayEdge(bus);
  return { broker, bus, edge, records };
}

describe("Broker on the embedded bus", () => {
  it("runs a turn per event and sends the agent's reply through the gateway edge", async () => {
    const { broker, edge, records } = start({ turnHandler: echo });
    const settled: unknown[] = [];
    broker.settledTurns.subscribe((turn) => settled.push(turn));
    await broker.start();
    const queued = await broker.submit(gatewayEvent({ event_id: "e1", text: "hi" }));
    expect(queued).toEqual([{ event_id: "e1", partition: expect.any(Number), seq: 1, duplicate: false }]);
    await until(() => records.some((r) => r.msg === "turn complete"), "turn complete");
    expect(edge.sent).toEqual([
      { reply_to: "e1", platform: "telegram", channel: { id: "test-channel" }, content: { type: "text", text: "echo: hi" } },
    ]);
    expect(records.find((r) => r.msg === "broker ready")).toMatchObject({ role: "all", bus: "memory", partitions: 16 });
    expect(records.find((r) => r.msg === "turn complete")).toMatchObject({ sessionKey: "telegram:test-channel:", event_id: "e1" });
    expect(settled).toEqual([{ sessionKey: "telegram:test-channel:", event_id: "e1", ok: true }]);
  });

  it("drops an event with a custom operator before dispatch: no turn, event settled", async () => {
    const ran: string[] = [];
    const pipeline = new Pipeline().use("beforeDispatch", keywordFilter(["unsubscribe"]));
    const { broker, edge, bus } = start({
      pipeline,
      // One turn per event (no collecting while the first runs): the stage sees each event alone.
      config: { queue: { mode: "followup" } },
      turnHandler: (turn, context) => {
        ran.push(turn.event.event_id);
        return echo(turn, context);
      },
    });
    await broker.start();
    await broker.submit(gatewayEvent({ event_id: "e1", text: "hello" }));
    await broker.submit(gatewayEvent({ event_id: "e2", text: "please UNSUBSCRIBE me" }));
    await broker.submit(gatewayEvent({ event_id: "e3", text: "flight?" }));
    await until(() => edge.sent.length === 2, "two replies");
    expect(ran).toEqual(["e1", "e3"]);
    expect(edge.sent.map((m) => m.content.text)).toEqual(["echo: hello", "echo: flight?"]);
    await broker.stop();
    // Every event was acked: nothing is left for another consumer of the turn stream.
    expect(held(bus)).toEqual([]);
  });

  it("[triage] judges proactive events in the session lane for a custom turn handler too: one inside the cooldown never reaches it", async () => {
    const ran: string[] = [];
    const { broker, records } = start({
      config: { queue: { mode: "followup" }, triage: { enabled: true, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 } },
      turnHandler: (turn, context) => {
        ran.push(turn.event.event_id);
        return echo(turn, context);
      },
    });
    const settled: { event_id: string; ok: boolean }[] = [];
    broker.settledTurns.subscribe((turn) => settled.push(turn));
    await broker.start();
    await broker.submit(gatewayEvent({ event_id: "p1", proactive: true, text: "reminder" }));
    await broker.submit(gatewayEvent({ event_id: "p2", proactive: true, text: "reminder again" }));
    await broker.submit(gatewayEvent({ event_id: "h1", text: "a human" }));
    await until(() => settled.length === 3, "three settled turns");
    expect(ran).toEqual(["p1", "h1"]);
    expect(settled.map((turn) => [turn.event_id, turn.ok])).toEqual([["p1", true], ["p2", true], ["h1", true]]);
    expect(records.filter((r) => r.msg === "proactive event suppressed by triage")).toMatchObject([{ decision: "suppressed", reason: "cooldown", event_id: "p2" }]);
    expect(records.filter((r) => r.msg === "proactive event admitted by triage")).toMatchObject([{ decision: "wake", event_id: "p1" }]);
  });

  it("applies beforeSend operators to every outbound message", async () => {
    const pipeline = new Pipeline().use(
      "beforeSend",
      map((m: OutboundMessage) => ({ ...m, content: { ...m.content, text: m.content.text.toUpperCase() } })),
    );
    const { broker, edge } = start({ pipeline, turnHandler: echo });
    await broker.start();
    await broker.submit(gatewayEvent({ text: "quiet please" }));
    await until(() => edge.sent.length === 1, "one reply");
    expect(edge.sent[0]?.content.text).toBe("ECHO: QUIET PLEASE");
  });

  it("runs one turn at a time per session and sessions side by side", async () => {
    const log: string[] = [];
    const slow: TurnHandler = ({ event }) =>
      defer(() => {
        log.push(`start ${event.event_id}`);
        return timer(40).pipe(map(() => log.push(`end ${event.event_id}`)));
      });
    const { broker, records } = start({ turnHandler: slow });
    await broker.start();
    const inA = { id: "chat-a", type: "dm" };
    const inB = { id: "chat-b", type: "dm" };
    await broker.submit(gatewayEvent({ event_id: "a1", channel: inA }));
    await broker.submit(gatewayEvent({ event_id: "a2", channel: inA }));
    await broker.submit(gatewayEvent({ event_id: "b1", channel: inB }));
    await until(() => records.filter((r) => r.msg === "turn complete").length === 3, "three turns");
    expect(log.indexOf("end a1")).toBeLessThan(log.indexOf("start a2"));
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
  });

  it("collects human messages queued behind a busy turn, but runs each proactive event as its own turn", async () => {
    const turns: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const handler: TurnHandler = ({ event }) =>
      defer(async () => {
        turns.push(event.proactive === true ? `proactive ${event.event_id}` : `human ${event.content.text.includes("[Queued messages") ? "collected" : event.event_id}`);
        if (event.event_id === "h0") await first;
      });
    const { broker, records } = start({ turnHandler: handler, config: { queue: { mode: "collect", debounce_ms: 0 } } });
    await broker.start();
    await broker.submit(gatewayEvent({ event_id: "h0", message_id: "m0" }));
    await until(() => turns.length === 1, "the first turn running");
    await broker.submit(gatewayEvent({ event_id: "p1", proactive: true }));
    await broker.submit(gatewayEvent({ event_id: "h1", message_id: "m1", text: "one" }));
    await broker.submit(gatewayEvent({ event_id: "h2", message_id: "m2", text: "two" }));
    await broker.submit(gatewayEvent({ event_id: "p2", proactive: true }));
    release();
    await until(() => records.filter((r) => r.msg === "turn complete").length === 4, "four turns");
    // Triage must see every proactive event: they are never merged into a collected turn.
    expect(turns).toEqual(["human h0", "proactive p1", "human collected", "proactive p2"]);
  });

  it("collapses a repeated platform:event_id into one turn", async () => {
    const { broker, edge, records } = start({ turnHandler: echo });
    await broker.start();
    const first = await broker.submit(gatewayEvent({ event_id: "same" }));
    const second = await broker.submit(gatewayEvent({ event_id: "same" }));
    expect(second).toEqual([{ ...first[0], duplicate: true }]);
    expect(records.filter((r) => r.msg === "duplicate event collapsed")).toMatchObject([{ reason: "duplicate", event_id: "same" }]);
    await until(() => edge.sent.length >= 1, "a reply");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(edge.sent).toHaveLength(1);
  });

  it("logs a failed turn with a stable reason and keeps serving other events", async () => {
    const { broker, edge, records } = start({
      turnHandler: (turn, context) =>
        turn.event.content.text === "boom" ? timer(1).pipe(concatMap(() => { throw new Error("agent exited"); })) : echo(turn, context),
    });
    await broker.start();
    await broker.submit(gatewayEvent({ event_id: "e1", text: "boom" }));
    await broker.submit(gatewayEvent({ event_id: "e2", text: "fine" }));
    await until(() => edge.sent.length === 1, "the second reply");
    const failed = records.find((r) => r.msg === "turn failed");
    expect(failed).toMatchObject({ reason: "turn_failed", event_id: "e1", sessionKey: "telegram:test-channel:" });
    expect(edge.sent[0]?.content.text).toBe("echo: fine");
  });

  it("fails a turn whose send finds no gateway connection, with reason turn_failed and code no_gateway", async () => {
    const { broker, edge, records } = start({ turnHandler: echo });
    edge.subscription.unsubscribe();
    await broker.start();
    await broker.submit(gatewayEvent());
    await until(() => records.some((r) => r.msg === "turn failed"), "turn failed");
    const failed = records.find((r) => r.msg === "turn failed") as { err?: { type?: string; code?: string } };
    expect(failed.err).toMatchObject({ type: "SendError", code: "no_gateway" });
  });

  it("says no_agent when a broker is built without a turn handler", async () => {
    const bus = new MemoryBus();
    const { logger, records } = captureLogs();
    broker = new Broker({ config: resolveConfig({}), bus, ownsBus: true, logger, pipeline: new Pipeline(), role: "all", turnHandler: undefined });
    await broker.start();
    await broker.submit(gatewayEvent());
    await until(() => records.some((r) => r.msg === "turn failed"), "turn failed");
    expect(records.find((r) => r.msg === "turn failed")).toMatchObject({ reason: "no_agent" });
  });

  it("runs turns on the ACP pool by default: an agent that cannot start is reported to the user", async () => {
    const { broker, edge, records } = start({ config: { agent: { command: "/nonexistent/agent" } } });
    await broker.start();
    await broker.submit(gatewayEvent({ event_id: "e1" }));
    await until(() => records.some((r) => r.msg === "turn failed"), "turn failed");
    expect(edge.sent.filter((m) => m.command === undefined).map((m) => m.content.text)).toEqual(["⚠️ The agent could not be started (agent_unavailable)"]);
    expect(records.find((r) => r.msg === "turn failed")).toMatchObject({ reason: "turn_failed", err: { type: "AgentSpawnError" } });
  });

  it("rejects an event whose afterIngress operator throws, logging reason stage_failed", async () => {
    const pipeline = new Pipeline().use(
      "afterIngress",
      map(() => {
        throw new Error("bad enrichment");
      }),
    );
    const { broker, records } = start({ pipeline, turnHandler: echo });
    await broker.start();
    await expect(broker.submit(gatewayEvent())).rejects.toBeInstanceOf(StageError);
    expect(records.find((r) => r.msg === "event rejected")).toMatchObject({ reason: "stage_failed", event_id: "evt-1" });
  });
});

describe("Broker shutdown", () => {
  it("lets a running turn finish within the grace period, then refuses new events", async () => {
    const { broker, edge } = start({
      turnHandler: (turn, context) => of(null).pipe(delay(60), concatMap(() => echo(turn, context))),
    });
    await broker.start();
    await broker.submit(gatewayEvent());
    await new Promise((resolve) => setTimeout(resolve, 10));
    const result = await broker.stop({ graceMs: 5_000 });
    expect(result).toEqual({ finished: 1, abandoned: 0 });
    expect(edge.sent).toHaveLength(1);
    await expect(broker.submit(gatewayEvent({ event_id: "late" }))).rejects.toBeInstanceOf(BrokerStoppedError);
  });

  it("cancels turns still running when the grace period ends and leaves their events unacked", async () => {
    const bus = new MemoryBus();
    const { logger, records } = captureLogs();
    broker = createBroker({ bus, logger, turnHandler: () => NEVER });
    await broker.start();
    await broker.submit(gatewayEvent({ event_id: "stuck" }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await broker.stop({ graceMs: 30 })).toEqual({ finished: 0, abandoned: 1 });
    expect(records.find((r) => r.msg === "shutdown grace expired")).toMatchObject({ reason: "grace_expired", abandoned: 1 });
    // The bus was supplied by the test, so it is still open: the unacked event is there for the next worker.
    expect(held(bus)).toEqual(["stuck"]);
  });
});

describe("createBroker", () => {
  it("validates the config object like a config file", () => {
    expect(() => createBroker({ config: { delivery: { mode: "bubblez" } } as never })).toThrow(ConfigError);
  });

  it("refuses a split role on the embedded bus", () => {
    let error: unknown;
    try {
      createBroker({ role: "edge" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0]?.path).toBe("role");
  });

  it("refuses a NATS url, which needs a connection first: connectBroker", () => {
    expect(() => createBroker({ config: { bus: { url: "nats://127.0.0.1:4222" } } })).toThrow(/bus\.url: a NATS bus needs a connection: create the broker with connectBroker/);
  });
});

/** Event ids still stored on the turn stream, read through the workers' own partition consumers. */
function held(bus: MemoryBus): string[] {
  const ids: string[] = [];
  for (let p = 0; p < 16; p++) {
    bus
      .consume<{ event_id: string }>(names.turn(p), { durable: names.partitionConsumer(p) })
      .subscribe((m) => ids.push(m.data.event_id))
      .unsubscribe();
  }
  return ids;
}
