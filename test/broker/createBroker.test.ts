import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NEVER, concat, type Subscription } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import type { Broker } from "../../src/broker/broker.js";
import { createBroker, TURN_QUEUE_JOURNAL } from "../../src/broker/createBroker.js";
import type { Bus } from "../../src/bus/bus.js";
import { ConfigError } from "../../src/config/index.js";
import { RECOVERED_REPLY_MARKER } from "../../src/turn/turnLedger.js";
import type { TurnHandler } from "../../src/turn/turn.js";
import { subjects } from "../../src/wire/index.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";

// createBroker on the embedded bus with a state dir: the turn queue and the delivery ledger are
// journaled there (issue 38 item 4), so a broker that died leaves its queued events, and what
// their turns did, to the next one on the same dir. "Died" here: a broker left as it is while the
// next one starts (it is stopped only after the test).

const names = subjects("turnstream");
const dirs: string[] = [];
const brokers: Broker[] = [];
afterEach(async () => {
  for (const broker of brokers.splice(0)) await broker.stop({ graceMs: 0 });
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-create-broker-"));
  dirs.push(dir);
  return dir;
}

/** Plays the platform's edge on the send subject: records each message and acks it. */
function platformEdge(bus: Bus): { sent: OutboundMessage[]; subscription: Subscription } {
  const sent: OutboundMessage[] = [];
  const subscription = bus.subscribe<OutboundMessage>(names.sends, { queue: names.sendQueue }).subscribe((m) => {
    sent.push(m.data);
    m.respond({ ok: true, messageId: `m-${sent.length}` });
  });
  return { sent, subscription };
}

const reply = (text: string): TurnHandler => ({ event }, { send }) =>
  send({ reply_to: event.event_id, platform: event.platform, channel: { id: event.channel.id }, content: { type: "text", text: `${text} ${event.content.text}` } });

function start(stateDir: string, turnHandler: TurnHandler) {
  const { logger, records } = captureLogs();
  const broker = createBroker({ config: { pool: { state_dir: stateDir }, queue: { mode: "followup" } }, logger, turnHandler, env: { HOME: stateDir } });
  brokers.push(broker);
  const edge = platformEdge(broker.bus);
  return { broker, edge, records };
}

const until = async (check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("createBroker on the embedded bus with a state dir", () => {
  it("runs after a crash the events a dead broker queued, in order, and marks the re-run of one that had begun answering", async () => {
    const dir = scratchDir();
    // The first broker answers e1 in part and then hangs; e2 and e3 wait behind it.
    const first = start(dir, (turn, context) => concat(reply("part of")(turn, context), NEVER));
    await first.broker.start();
    for (const id of ["e1", "e2", "e3"]) await first.broker.submit(gatewayEvent({ event_id: id, message_id: id, text: id }));
    await until(() => first.edge.sent.length === 1, "the first message of e1");
    await new Promise((resolve) => setImmediate(resolve));
    first.edge.subscription.unsubscribe(); // the crash: never stopped until the test is over

    const second = start(dir, reply("answer to"));
    await second.broker.start();
    await until(() => second.edge.sent.length === 3, "three answers");
    expect(second.edge.sent.map((m) => m.content.text)).toEqual([`${RECOVERED_REPLY_MARKER}\n\nanswer to e1`, "answer to e2", "answer to e3"]);
    expect(second.records.find((r) => r.msg === "turn queue read from its journal")).toMatchObject({ queued: 3 });
    expect(second.records.filter((r) => r.msg === "interrupted turn re-run").map((r) => [r.event_id, r.marked])).toEqual([
      ["e1", true],
      ["e2", false],
      ["e3", false],
    ]);
    // Queued again, the same event is a duplicate: it is not queued twice.
    await expect(second.broker.submit(gatewayEvent({ event_id: "e3", message_id: "e3", text: "e3" }))).resolves.toMatchObject([{ duplicate: true }]);
  });

  it("keeps what a graceful stop left unfinished for the next start", async () => {
    const dir = scratchDir();
    const first = start(dir, () => NEVER);
    await first.broker.start();
    await first.broker.submit(gatewayEvent({ event_id: "e1", text: "e1" }));
    await first.broker.stop({ graceMs: 0 });

    const second = start(dir, reply("answer to"));
    await second.broker.start();
    await until(() => second.edge.sent.length === 1, "the answer");
    expect(second.edge.sent[0]?.content.text).toBe("answer to e1");
  });

  it("keeps the queue in memory only for a broker in code with its own turn handler and no state dir", async () => {
    const home = scratchDir();
    const broker = createBroker({ logger: captureLogs().logger, turnHandler: () => NEVER, env: { HOME: home } });
    brokers.push(broker);
    await broker.start();
    await broker.submit(gatewayEvent());
    expect(existsSync(join(home, ".turnstream"))).toBe(false);
  });

  it("refuses a journal another version wrote with one line naming pool.state_dir", () => {
    const dir = scratchDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, TURN_QUEUE_JOURNAL), '{"journal":"turnstream turn queue","v":99,"seq":1}\n');
    let refused: unknown;
    try {
      createBroker({ config: { pool: { state_dir: dir } }, logger: captureLogs().logger, turnHandler: () => NEVER });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).lines()).toEqual([
      `pool.state_dir: ${join(dir, TURN_QUEUE_JOURNAL)} was written by another turnstream version (journal format 99, this one reads 1); run that version until its queue is empty, or move the file away to start with an empty queue`,
    ]);
  });
});
