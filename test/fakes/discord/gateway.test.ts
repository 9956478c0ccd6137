import { describe, expect, it } from "vitest";
import { API, GatewayDispatchEvents, GatewayIntentBits, type GatewayMessageCreateDispatchData } from "@discordjs/core";
import { WebSocketShardEvents } from "@discordjs/ws";
import { FakeDiscord, INTENT } from "./index.js";
import { BOT, connectBot, OPENAB_INTENTS, someGuild, TOKEN, until, useFakeDiscord } from "./fakeDiscordFixture.js";
import { RawGatewayClient } from "./rawGatewayClient.js";

describe("fake Discord: the gateway with @discordjs/ws and @discordjs/core", () => {
  // A long interval: no test here depends on heartbeats, and a loaded machine never misses one.
  const discord = useFakeDiscord({ heartbeatIntervalMs: 5_000, identifyIntervalMs: 0 });

  it("HELLO, IDENTIFY, READY (session, resume URL, unavailable guilds), then GUILD_CREATE with channels and threads", async () => {
    const { guild, general } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.GuildCreate));
    const [ready, guildCreate] = bot.dispatches;
    expect(ready).toMatchObject({ op: 0, s: 1, t: "READY", d: { v: 10, user: { id: BOT.id, bot: true }, guilds: [{ id: guild.id, unavailable: true }], resume_gateway_url: discord.fake.resumeGatewayUrl, application: { id: BOT.id } } });
    expect(guildCreate).toMatchObject({ s: 2, t: "GUILD_CREATE", d: { id: guild.id, unavailable: false, channels: expect.arrayContaining([expect.objectContaining({ id: general.id, name: "general" })]), threads: [] } });
    const connection = discord.fake.gateway.connections[0]!;
    expect(connection.path).toBe("/gateway");
    expect(connection.received.find((payload) => payload.op === 2)?.d).toMatchObject({ token: TOKEN, intents: OPENAB_INTENTS, shard: [0, 1], properties: { browser: "@discordjs/ws 2.0.4" } });
    expect([discord.fake.gateway.liveSessions, discord.fake.gateway.identifies]).toEqual([1, 1]);
  });

  it("dispatches a user's MESSAGE_CREATE (guild_id, member, mentions with member, s counting up) and the bot's own", async () => {
    const { general, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    const seen: GatewayMessageCreateDispatchData[] = [];
    bot.client.on(GatewayDispatchEvents.MessageCreate, ({ data }) => void seen.push(data));
    discord.fake.from(alice).message(general.id, `<@${BOT.id}> hello`);
    await new API(bot.rest).channels.createMessage(general.id, { content: "hi Alice" });
    await until(() => seen.length === 2);
    expect(seen[0]).toMatchObject({ content: `<@${BOT.id}> hello`, guild_id: expect.any(String), author: { id: alice.id }, member: { nick: "Ally" }, mentions: [{ id: BOT.id, bot: true, member: { roles: expect.any(Array) } }] });
    expect(seen[1]).toMatchObject({ content: "hi Alice", author: { id: BOT.id, bot: true } });
    const sequence = bot.dispatches.map((dispatch) => dispatch.s);
    expect(sequence).toEqual(sequence.map((_, index) => index + 1));
  });

  it("without MESSAGE_CONTENT, guild messages arrive empty unless they mention the bot; DMs and the bot's own keep theirs", async () => {
    const { general, dm, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake, { intents: OPENAB_INTENTS & ~GatewayIntentBits.MessageContent });
    discord.fake.from(alice).message(general.id, "secret plans", { attachments: [{ filename: "plan.txt", bytes: "x", contentType: "text/plain" }] });
    discord.fake.from(alice).message(general.id, `<@${BOT.id}> for you`);
    discord.fake.from(alice).message(dm.id, "a DM");
    await until(() => bot.dispatches.filter((dispatch) => dispatch.t === "MESSAGE_CREATE").length === 3);
    const messages = bot.dispatches.filter((dispatch) => dispatch.t === "MESSAGE_CREATE").map((dispatch) => dispatch.d as GatewayMessageCreateDispatchData);
    expect(messages.map((message) => [message.content, message.attachments.length])).toEqual([["", 0], [`<@${BOT.id}> for you`, 0], ["a DM", 0]]);
  });

  it("sends only what the intents ask for: no guild messages without GUILD_MESSAGES, no DMs without DIRECT_MESSAGES; interactions always", async () => {
    const { general, dm, alice } = someGuild(discord.fake);
    await new API(discord.rest).applicationCommands.bulkOverwriteGlobalCommands(BOT.id, [{ name: "cancel", description: "Cancel the current operation" }]);
    const bot = await connectBot(discord.fake, { intents: GatewayIntentBits.DirectMessages });
    discord.fake.from(alice).message(general.id, "in the guild");
    discord.fake.from(alice).message(dm.id, "in the DM");
    discord.fake.from(alice).slash(general.id, "cancel");
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === "INTERACTION_CREATE"));
    expect(bot.dispatches.map((dispatch) => dispatch.t)).toEqual(["READY", "MESSAGE_CREATE", "INTERACTION_CREATE"]);
    expect((bot.dispatches[1]!.d as { content: string }).content).toBe("in the DM");
  });

  it("dispatches THREAD_CREATE (newly_created) and the starter's MESSAGE_UPDATE when the bot starts a thread", async () => {
    const { general, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    const trigger = discord.fake.from(alice).message(general.id, "start one");
    await new API(bot.rest).channels.createThread(general.id, { name: "start one" }, trigger.id);
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === "MESSAGE_UPDATE"));
    expect(bot.dispatches.slice(-3).map((dispatch) => dispatch.t)).toEqual(["MESSAGE_CREATE", "THREAD_CREATE", "MESSAGE_UPDATE"]);
    expect(bot.dispatches.at(-2)!.d).toMatchObject({ id: trigger.id, parent_id: general.id, newly_created: true, member: { user_id: BOT.id } });
    expect(bot.dispatches.at(-1)!.d).toMatchObject({ id: trigger.id, thread: { id: trigger.id } });
  });

  it("counts sessions held at once: 1 while one bot runs, 2 when a second identifies beside it", async () => {
    someGuild(discord.fake);
    const first = await connectBot(discord.fake);
    expect(discord.fake.gateway.maxConcurrentSessions).toBe(1);
    await connectBot(discord.fake);
    expect([discord.fake.gateway.liveSessions, discord.fake.gateway.maxConcurrentSessions]).toEqual([2, 2]);
    await first.gateway.destroy();
    await until(() => discord.fake.gateway.liveSessions === 1);
  });
});

describe("fake Discord: heartbeats with @discordjs/ws", () => {
  const discord = useFakeDiscord({ heartbeatIntervalMs: 250, identifyIntervalMs: 0 });

  it("acknowledges heartbeats (op 1 → op 11) and answers its own heartbeat request at once", async () => {
    const bot = await connectBot(discord.fake);
    const acked: number[] = [];
    bot.gateway.on(WebSocketShardEvents.HeartbeatComplete, ({ latency }) => void acked.push(latency));
    await until(() => acked.length >= 2, 5_000);
    const connection = discord.fake.gateway.connections[0]!;
    const before = connection.received.filter((payload) => payload.op === 1).length;
    discord.fake.gateway.requestHeartbeat();
    await until(() => connection.received.filter((payload) => payload.op === 1).length > before, 1_000);
    expect(connection.received.filter((payload) => payload.op === 1).at(-1)!.d).toBe(bot.dispatches.at(-1)!.s);
  });
});

describe("fake Discord: the gateway's refusals, as close codes", () => {
  const discord = useFakeDiscord({ heartbeatIntervalMs: 5_000, identifyIntervalMs: 0, privilegedIntents: INTENT.MESSAGE_CONTENT });

  it("4004 for a wrong token, 4013 for an unknown intent bit, 4014 for a privileged intent the portal has not enabled", async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ token: "wrong" }, 4004],
      [{ intents: 1 << 17 }, 4013],
      [{ intents: -1 }, 4013],
      [{ intents: GatewayIntentBits.GuildMembers }, 4014],
    ];
    for (const [change, code] of cases) {
      const client = await RawGatewayClient.open(discord.fake);
      client.identify(discord.fake, GatewayIntentBits.Guilds, change);
      expect(await client.closed()).toBe(code);
    }
    expect(discord.fake.gateway.identifies).toBe(0);
  });

  it("4003 for a payload before IDENTIFY, 4005 for a second IDENTIFY, 4002 for bad JSON or 4097 bytes, 4001 for an unknown op", async () => {
    const early = await RawGatewayClient.open(discord.fake);
    early.send({ op: 3, d: { since: null, activities: [], status: "online", afk: false } });
    expect(await early.closed()).toBe(4003);
    const twice = await RawGatewayClient.open(discord.fake);
    twice.identify(discord.fake, GatewayIntentBits.Guilds);
    await twice.next((payload) => payload.t === "READY");
    twice.identify(discord.fake, GatewayIntentBits.Guilds);
    expect(await twice.closed()).toBe(4005);
    for (const [payload, code] of [["{not json", 4002], [{ op: 1, d: null, pad: "x".repeat(4096) }, 4002], [{ op: 5, d: {} }, 4001]] as const) {
      const client = await RawGatewayClient.open(discord.fake);
      client.send(payload);
      expect(await client.closed()).toBe(code);
    }
  });

  it("4012 for an API version other than 10, before HELLO; 4010 for a shard outside its count", async () => {
    const v9 = await RawGatewayClient.open(discord.fake, "v=9&encoding=json");
    expect(await v9.closed()).toBe(4012);
    expect(v9.received).toEqual([]);
    const sharded = await RawGatewayClient.open(discord.fake);
    sharded.identify(discord.fake, GatewayIntentBits.Guilds, { shard: [1, 1] });
    expect(await sharded.closed()).toBe(4010);
  });

  it("closes a connection whose heartbeat is overdue with 4009 (1.5 × heartbeat_interval after the last)", async () => {
    const quick = await FakeDiscord.start({ token: TOKEN, bot: BOT, heartbeatIntervalMs: 300 });
    try {
      const client = await RawGatewayClient.open(quick);
      const hello = await client.next((payload) => payload.op === 10);
      expect(hello.d).toEqual({ heartbeat_interval: 300 });
      client.send({ op: 1, d: null });
      await client.next((payload) => payload.op === 11);
      const started = Date.now();
      expect(await client.closed()).toBe(4009);
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
      expect(client.closeReason).toBe("Session timed out");
    } finally {
      await quick.close();
    }
  });

  it("answers a second IDENTIFY within the identify window with op 9 (d false), as max_concurrency 1 does", async () => {
    const slow = await FakeDiscord.start({ token: TOKEN, bot: BOT, identifyIntervalMs: 5_000 });
    try {
      const first = await RawGatewayClient.open(slow);
      first.identify(slow, GatewayIntentBits.Guilds);
      await first.next((payload) => payload.t === "READY");
      const second = await RawGatewayClient.open(slow);
      second.identify(slow, GatewayIntentBits.Guilds);
      expect(await second.next((payload) => payload.op === 9)).toMatchObject({ op: 9, d: false });
      expect(slow.gateway.identifies).toBe(1);
    } finally {
      await slow.close();
    }
  });
});
