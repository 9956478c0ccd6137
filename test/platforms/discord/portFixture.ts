import { afterEach, beforeEach } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { discordSection, type DiscordConfig } from "../../../src/config/sections/discord.js";
import { DiscordPort, type DiscordPortOptions } from "../../../src/platforms/discord/discordPort.js";
import { FakeDiscord, type FakeDiscordOptions } from "../../fakes/discord/index.js";
import { BOT, TOKEN } from "../../fakes/discord/fakeDiscordFixture.js";
import { captureLogs, type LogRecord } from "../../helpers/logCapture.js";
import { SendError } from "../../../src/wire/index.js";

export { BOT, TOKEN, someGuild, until } from "../../fakes/discord/fakeDiscordFixture.js";

export interface PortUnderTest {
  readonly fake: FakeDiscord;
  readonly port: DiscordPort;
  readonly events: GatewayEvent[];
  readonly logs: LogRecord[];
  /** Builds (and starts, unless `start: false`) another port over the same fake: closed after the test. */
  open(keys?: Record<string, unknown>, options?: Partial<DiscordPortOptions> & { readonly start?: boolean }): Promise<DiscordPort>;
}

/** The `[discord]` section a test writes, pointed at the fake. */
export function configFor(fake: FakeDiscord, keys: Record<string, unknown> = {}): DiscordConfig {
  return discordSection.parse({ bot_token: TOKEN, api_root: fake.api, ...keys });
}

/**
 * A fake Discord and a `DiscordPort` on it per test (no IDENTIFY wait, heartbeats every 5 s so a
 * loaded machine never misses one), events and log lines collected. `open` makes the port: a test
 * sets the guild up first, since GUILD_CREATE carries its channels.
 */
export function useDiscordPort(fakeOptions: Partial<FakeDiscordOptions> = {}): PortUnderTest {
  const state: { fake?: FakeDiscord; port?: DiscordPort; ports: DiscordPort[]; events: GatewayEvent[]; logs: LogRecord[] } = { ports: [], events: [], logs: [] };
  beforeEach(async () => {
    state.fake = await FakeDiscord.start({ token: TOKEN, bot: BOT, heartbeatIntervalMs: 5_000, identifyIntervalMs: 0, ...fakeOptions });
    state.events = [];
    state.logs = [];
    state.ports = [];
    state.port = undefined;
  });
  afterEach(async () => {
    await Promise.all(state.ports.map((port) => port.close()));
    await state.fake?.close();
  });
  return {
    get fake() {
      return state.fake!;
    },
    get port() {
      if (!state.port) throw new Error("open() the port first");
      return state.port;
    },
    get events() {
      return state.events;
    },
    get logs() {
      return state.logs;
    },
    async open(keys = {}, options = {}) {
      const { logger, records } = captureLogs("debug");
      state.logs = records;
      const port = new DiscordPort({ config: configFor(state.fake!, keys), logger, identifyIntervalMs: 0, ...options });
      port.events.subscribe((event) => state.events.push(event));
      state.ports.push(port);
      state.port ??= port;
      if (options.start !== false) {
        await port.prepare();
        port.start();
      }
      return port;
    },
  };
}

/** The `SendError` a send was refused with; fails the test when the send was accepted (or failed otherwise). */
export async function refused(promise: Promise<unknown>): Promise<SendError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SendError) return err;
    throw err;
  }
  throw new Error("the send was accepted");
}
