import { afterEach, beforeEach } from "vitest";
import { Client, GatewayIntentBits, type GatewayDispatchPayload } from "@discordjs/core";
import { DiscordAPIError, REST, type RESTOptions } from "@discordjs/rest";
import { WebSocketManager, WebSocketShardEvents, type OptionalWebSocketManagerOptions, type SessionInfo } from "@discordjs/ws";
import { FakeDiscord, type FakeDiscordOptions } from "./index.js";

export const BOT = { id: "1311111111111111111", username: "turnstream", global_name: "Turnstream" } as const;
/** Shaped like a bot token: the bot id in base64, a timestamp part, an HMAC part. */
export const TOKEN = `${Buffer.from(BOT.id).toString("base64").replace(/=+$/, "")}.GkT3xq.fake-discord-token-for-tests-only-00`;

/** The intents OpenAB's Discord adapter identifies with (reference §2.2). */
export const OPENAB_INTENTS = GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.DirectMessages | GatewayIntentBits.MessageContent;

/** @discordjs/rest pointed at a fake, with its real rate-limit handling (offset 50 ms, as by default). */
export function restFor(fake: FakeDiscord, options: Partial<RESTOptions> = {}): REST {
  return new REST({ api: fake.api, version: "10", ...options }).setToken(TOKEN);
}

/** A fake Discord started before each test and closed after it, and a REST client pointed at it. */
export function useFakeDiscord(options: Partial<FakeDiscordOptions> = {}): { readonly fake: FakeDiscord; readonly rest: REST } {
  const current: { fake?: FakeDiscord; rest?: REST } = {};
  beforeEach(async () => {
    current.fake = await FakeDiscord.start({ token: TOKEN, bot: BOT, ...options });
    current.rest = restFor(current.fake);
  });
  afterEach(async () => {
    await stopGateways();
    current.rest?.clearHashSweeper();
    current.rest?.clearHandlerSweeper();
    await current.fake?.close();
  });
  return {
    get fake() {
      return current.fake!;
    },
    get rest() {
      return current.rest!;
    },
  };
}

/** A guild with a text channel, a channel the bot may only read, two people, another bot, a role and a DM. */
export function someGuild(fake: FakeDiscord) {
  const guild = fake.addGuild({ name: "Turnstream HQ" });
  const alice = fake.addUser({ username: "alice", global_name: "Alice" });
  const bob = fake.addUser({ username: "bob" });
  const otherBot = fake.addUser({ username: "otherbot", bot: true });
  const helpers = fake.addRole(guild.id, { name: "helpers" });
  fake.addMember(guild.id, alice.id, { nick: "Ally", roles: [helpers.id] });
  fake.addMember(guild.id, bob.id);
  fake.addMember(guild.id, otherBot.id);
  const general = fake.addChannel(guild.id, "general");
  const readOnly = fake.addChannel(guild.id, "read-only", { permissions: { send: false, addReactions: false, createPublicThreads: false } });
  const dm = fake.dmWith(alice.id);
  const botRole = [...guild.roles.values()].find((role) => role.botId === BOT.id)!;
  return { guild, alice, bob, otherBot, helpers, botRole, general, readOnly, dm };
}

export interface ConnectedBot {
  readonly gateway: WebSocketManager;
  readonly client: Client;
  readonly rest: REST;
  /** Every dispatch the client received, in order. */
  readonly dispatches: GatewayDispatchPayload[];
  /** The session store this manager resumes from (its own, not @discordjs/ws's process-wide default). */
  readonly sessionStore: Map<number, SessionInfo>;
}

const running = new Set<ConnectedBot>();

/**
 * @discordjs/ws's WebSocketManager and @discordjs/core's Client connected to a fake, its REST pointed at the
 * fake (GET /gateway/bot gives the gateway URL). Each has its own session store (the default one is shared
 * by every manager in the process) and, unless a test passes its own, an identify throttler that does not
 * wait (the default waits 5 s between IDENTIFYs of one manager). Stopped after the test.
 */
export async function connectBot(fake: FakeDiscord, options: Partial<OptionalWebSocketManagerOptions> & { intents?: number } = {}): Promise<ConnectedBot> {
  const rest = restFor(fake);
  const sessionStore = new Map<number, SessionInfo>();
  const gateway = new WebSocketManager({
    token: TOKEN,
    intents: OPENAB_INTENTS,
    rest,
    retrieveSessionInfo: (shardId) => sessionStore.get(shardId) ?? null,
    updateSessionInfo: (shardId, info) => void (info ? sessionStore.set(shardId, info) : sessionStore.delete(shardId)),
    buildIdentifyThrottler: async () => ({ waitForIdentify: async () => undefined }),
    ...options,
  });
  const client = new Client({ rest, gateway });
  const dispatches: GatewayDispatchPayload[] = [];
  gateway.on(WebSocketShardEvents.Dispatch, (payload) => void dispatches.push(payload));
  const bot: ConnectedBot = { gateway, client, rest, dispatches, sessionStore };
  running.add(bot);
  await gateway.connect();
  return bot;
}

export async function stopBot(bot: ConnectedBot): Promise<void> {
  running.delete(bot);
  await Promise.resolve(bot.gateway.destroy()).catch(() => undefined);
  bot.rest.clearHashSweeper();
  bot.rest.clearHandlerSweeper();
}

async function stopGateways(): Promise<void> {
  await Promise.all([...running].map(stopBot));
}

/** The DiscordAPIError a call is refused with (fails the test if the call succeeds). */
export async function refusal(call: Promise<unknown>): Promise<DiscordAPIError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof DiscordAPIError) return error;
    throw error;
  }
  throw new Error("the fake Discord accepted a request it should refuse");
}

/** Waits until `check` holds (polling every 10 ms); fails the test after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
