import { of, VirtualTimeScheduler } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { DENY_ECHO_WINDOW_MS } from "../../operators/ingress/trustGate.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { resolveConfig } from "../../src/config/index.js";
import { runEdge } from "../../src/edge/edge.js";
import type { IngressRules } from "../../src/platforms/platformPort.js";
import { telegramIngress } from "../../src/platforms/telegram/telegramIngress.js";
import { subjects } from "../../src/wire/index.js";
import { gatewayEvent } from "../helpers/events.js";
import { captureLogs } from "../helpers/logCapture.js";
import { ScriptedPort } from "../helpers/scriptedPort.js";

// How often an edge answers a stranger is its port's to say (IngressRules.denyEchoWindowMs):
// Telegram's adapter once an hour per sender (issue 38), the gateway's every 5 minutes. The
// operator's window is pinned in trustGate.marble.test.ts; here, that the edge applies the port's.

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** An edge over a port with `rules`, on a clock the test sets; the notices it posts. */
function edgeWith(rules: IngressRules) {
  const port = new ScriptedPort(rules, ["telegram"]);
  const bus = new MemoryBus();
  const clock = new VirtualTimeScheduler();
  const notices: OutboundMessage[] = [];
  const edge = runEdge({
    port,
    inbound: resolveConfig({}, { env: {} }).inbound,
    wantAck: true,
    queue: (_event, _key, done) => done(),
    bus,
    subjects: subjects("t", { native: ["telegram"] }),
    logger: captureLogs().logger,
    scheduler: clock,
    notices: (message) => {
      notices.push(message);
      return of({ messageId: `n${notices.length}` });
    },
  });
  cleanup.push(
    () => edge.responder.unsubscribe(),
    () => port.close(),
    () => bus.close(),
  );
  let sent = 0;
  /** The stranger writes at `atMs`: whether the edge answered that message. */
  const strangerWritesAt = (atMs: number): boolean => {
    clock.frame = atMs;
    const before = notices.length;
    port.events.next(gatewayEvent({ event_id: `e${++sent}`, channel: { id: "2002", type: "private" }, sender: { id: "2002", name: "bob", display_name: "Bob", is_bot: false } }));
    return notices.length > before;
  };
  return { strangerWritesAt, notices };
}

const telegram = resolveConfig({ telegram: { bot_token: "123456:abc-DEF", allowed_users: ["1001"] } }, { env: {} }).telegram!;

describe("the edge answers a stranger at most once per its port's window", () => {
  it("Telegram's: once an hour per sender, naming their id", () => {
    const { strangerWritesAt, notices } = edgeWith(telegramIngress(telegram, () => "turnstream_test_bot"));
    const hour = 3_600_000;
    expect([0, DENY_ECHO_WINDOW_MS, hour - 1, hour, 2 * hour - 1, 2 * hour].map(strangerWritesAt)).toEqual([true, false, false, true, false, true]);
    expect(notices.map((notice) => notice.content.text)).toEqual(Array(3).fill(expect.stringContaining("Your ID: 2002")));
  });

  it("a port that names none (the gateway's): every 5 minutes", () => {
    const { strangerWritesAt } = edgeWith({ allow_bot_messages: false, trusted_bot_ids: [], allowed_channels: [], allow_all_users: false, allowed_users: ["1001"] });
    expect([0, DENY_ECHO_WINDOW_MS - 1, DENY_ECHO_WINDOW_MS].map(strangerWritesAt)).toEqual([true, false, true]);
  });
});
