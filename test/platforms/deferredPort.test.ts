import { afterEach, describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { DeferredPort } from "../../src/platforms/deferredPort.js";
import type { PlatformPort } from "../../src/platforms/platformPort.js";
import { telegramCapabilities, TelegramPort } from "../../src/platforms/telegram/index.js";
import { someChats, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { captureLogs } from "../helpers/logCapture.js";
import { telegramConfig } from "./telegram/telegramTestConfig.js";

// A native port loaded when the broker prepares it: here the real TelegramPort behind it, against
// the fake Bot API, with a loader that counts how often the adapter was made.

const fake = useFakeBotApi();
const ports: DeferredPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function deferred() {
  const config = telegramConfig(fake.api);
  const loads: PlatformPort[] = [];
  const port = new DeferredPort({
    name: "telegram",
    capabilities: telegramCapabilities(config),
    load: async () => {
      const made = new TelegramPort({ config, logger: captureLogs().logger });
      loads.push(made);
      return made;
    },
  });
  ports.push(port);
  return { port, loads };
}

describe("DeferredPort", () => {
  it("loads nothing until prepared: disconnected, its capabilities and limit from the config alone", async () => {
    const { port, loads } = deferred();
    const shown: boolean[] = [];
    port.connected.subscribe((up) => shown.push(up));
    expect(port.isConnected).toBe(false);
    expect(port.platforms).toEqual(["telegram"]);
    expect(port.capabilities("telegram")).toMatchObject({ messageLimit: 4096, canEdit: true });
    expect(port.capabilities("discord")).toBeUndefined();
    expect(port.messageLimit("telegram")).toBe(4096);
    expect(() => port.ingress).toThrow(/before prepare\(\) loaded its adapter/);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A subscription to `connected` loads the adapter (its state is the adapter's), but nothing is called.
    expect(loads).toHaveLength(1);
    expect(fake.api.calls).toEqual([]);
    expect(shown[0]).toBe(false);
  });

  it("prepare loads the adapter once and runs its checks; then events flow and sends go out through it", async () => {
    const { port, loads } = deferred();
    const events: GatewayEvent[] = [];
    await port.prepare();
    await port.prepare();
    expect(loads).toHaveLength(1);
    expect(fake.api.callsOf("getMe")).toHaveLength(1);
    expect(port.ingress.bot_username).toBe("turnstream_test_bot");
    port.events.subscribe((event) => events.push(event));
    port.start();
    await until(() => port.isConnected);
    const { alice, dm } = someChats(fake.api);
    fake.api.from(alice).text(dm.id, "hello");
    await until(() => events.length === 1);
    port.settled(events[0]!);
    const receipt = await port.send({ reply_to: events[0]!.event_id, platform: "telegram", channel: { id: String(dm.id) }, content: { type: "text", text: "hi back" } }, { wantAck: true });
    expect(receipt.messageId).not.toBe("");
    expect(fake.api.botTexts(dm.id)).toEqual(["hi back"]);
    expect(port.receiver?.key).toBe("telegram.123456789");
  });

  it("closed before it was ever loaded: nothing is loaded, and a later send is refused", async () => {
    const { port, loads } = deferred();
    await port.close();
    expect(loads).toEqual([]);
    await expect(port.send({ reply_to: "", platform: "telegram", channel: { id: "1" }, content: { type: "text", text: "x" } }, { wantAck: true })).rejects.toThrow(/closed/);
  });
});
