import { firstValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { NoRespondersError } from "../../src/bus/errors.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { resolveConfig } from "../../src/config/index.js";
import { EdgeSettlement } from "../../src/edge/edgeSettlement.js";
import { runEdge } from "../../src/edge/edge.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { createSender } from "../../src/pipeline/send.js";
import type { IngressRules } from "../../src/platforms/platformPort.js";
import { subjects } from "../../src/wire/index.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";
import { ScriptedPort } from "../helpers/scriptedPort.js";
import { until } from "../helpers/stack.js";

const person = (id: string, sender: string, text = "hello") =>
  gatewayEvent({ event_id: id, platform: "scripted", text, sender: { id: sender, name: sender, display_name: sender, is_bot: false } });

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** An edge over `port`, whose queue acknowledges each append 50 ms after it was asked (a JetStream round trip). */
function edgeOver(port: ScriptedPort, inbound: { debounce_ms?: number } = {}) {
  const bus = new MemoryBus();
  const names = subjects("t", { native: ["scripted"] });
  const queued: string[] = [];
  const config = resolveConfig({ inbound }, { env: {} });
  const edge = runEdge({
    port,
    inbound: config.inbound,
    wantAck: true,
    queue: (event, _key, done) =>
      setTimeout(() => {
        queued.push(event.event_id);
        done();
      }, 50),
    bus,
    subjects: names,
    logger: captureLogs().logger,
    scheduler: bus.scheduler,
    notices: createSender({ bus, subjects: names, pipeline: new Pipeline(), timeoutMs: 5_000 }),
  });
  cleanup.push(
    () => edge.responder.unsubscribe(),
    () => bus.close(),
  );
  return { edge, queued, bus, names };
}

describe("EdgeSettlement", () => {
  it("settles an event once, and a merged one as the events it stands for", () => {
    const port = new ScriptedPort({ allow_bot_messages: false, trusted_bot_ids: [], allowed_channels: [], allowed_users: [] });
    const settlement = EdgeSettlement.of(port)!;
    const [a, b] = [person("a", "ann"), person("b", "ann")];
    const both = { ...b, content: { ...b.content, text: "hello\nhello" } };
    settlement.merged([a, b], both);
    settlement.settle(person("c", "bob"));
    settlement.settle(both);
    settlement.settle(both); // settled already: it stands for nothing now, so it is itself
    expect(port.settledIds).toEqual(["c", "a", "b", "b"]);
  });

  it("is none for a port that confirms nothing (the gateway's)", () => {
    const port = new ScriptedPort({ allow_bot_messages: false, trusted_bot_ids: [], allowed_channels: [], allowed_users: [] });
    expect(EdgeSettlement.of(Object.assign(Object.create(port) as ScriptedPort, { settled: undefined }))).toBeUndefined();
  });
});

describe("runEdge settles every event its port emitted", () => {
  const rules: IngressRules = { allow_bot_messages: false, trusted_bot_ids: [], allowed_channels: [], allow_all_users: false, allowed_users: ["ann"] };

  it("a skipped and a denied event at once; a queued one only once its append was acknowledged", async () => {
    const port = new ScriptedPort(rules);
    const { queued } = edgeOver(port);
    port.events.next(gatewayEvent({ event_id: "bot", platform: "scripted", sender: { id: "b1", name: "bot", display_name: "bot", is_bot: true } }));
    port.events.next(person("stranger", "mallory"));
    port.events.next(person("ann-1", "ann"));
    expect(port.settledIds).toEqual(["bot", "stranger"]);
    expect(await until(() => port.settledIds.length === 3, 5_000)).toBe(true);
    expect(queued).toEqual(["ann-1"]);
    expect(port.settledIds).toEqual(["bot", "stranger", "ann-1"]);
  });

  it("messages debounce merged settle together, when the one that stands for them is queued", async () => {
    const port = new ScriptedPort(rules);
    const { queued } = edgeOver(port, { debounce_ms: 100 });
    port.events.next(person("ann-1", "ann", "one"));
    port.events.next(person("ann-2", "ann", "two"));
    port.events.next(person("ann-3", "ann", "three"));
    expect(await until(() => port.settledIds.length === 3, 5_000)).toBe(true);
    expect(queued).toEqual(["ann-3"]);
    expect(port.settledIds).toEqual(["ann-1", "ann-2", "ann-3"]);
  });

  it("answers its platforms' own send subject, which no gateway edge listens on", async () => {
    const port = new ScriptedPort(rules);
    const { bus, names } = edgeOver(port);
    const message: OutboundMessage = { reply_to: "e1", platform: "scripted", channel: { id: "c1" }, content: { type: "text", text: "on it" } };
    await expect(firstValueFrom(bus.request(names.send("scripted"), message, { timeoutMs: 5_000 }))).resolves.toEqual({ ok: true, messageId: "m1" });
    expect(port.sent).toEqual([message]);
    // A gateway's platform is not this edge's: nobody answers it here.
    await expect(firstValueFrom(bus.request(names.send("telegram"), { ...message, platform: "telegram" }, { timeoutMs: 5_000 }))).rejects.toBeInstanceOf(NoRespondersError);
    expect(names.send("scripted")).toBe("t.native.scripted");
    expect(names.send("telegram")).toBe("t.send.telegram");
  });
});
