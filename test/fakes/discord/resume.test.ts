import { describe, expect, it } from "vitest";
import { GatewayDispatchEvents, GatewayIntentBits } from "@discordjs/core";
import { connectBot, someGuild, TOKEN, until, useFakeDiscord } from "./fakeDiscordFixture.js";
import { RawGatewayClient } from "./rawGatewayClient.js";

const messagesSeen = (dispatches: readonly { t: string; d: unknown }[]) => dispatches.filter((dispatch) => dispatch.t === GatewayDispatchEvents.MessageCreate).map((dispatch) => (dispatch.d as { content: string }).content);

describe("fake Discord: resuming a session with @discordjs/ws", () => {
  // Long enough that a loaded machine never misses a heartbeat (which would add a resume of its own).
  const discord = useFakeDiscord({ heartbeatIntervalMs: 5_000, identifyIntervalMs: 0 });

  it("after a close with 4000, the client resumes at resume_gateway_url and gets what it missed, in order, then RESUMED", async () => {
    const { general, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    discord.fake.from(alice).message(general.id, "before");
    await until(() => messagesSeen(bot.dispatches).length === 1);
    discord.fake.gateway.disconnect(4000);
    discord.fake.from(alice).message(general.id, "while away 1");
    discord.fake.from(alice).message(general.id, "while away 2");
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.Resumed));
    expect(messagesSeen(bot.dispatches)).toEqual(["before", "while away 1", "while away 2"]);
    const sequence = bot.dispatches.map((dispatch) => dispatch.s);
    expect(sequence).toEqual(sequence.map((_, index) => index + 1));
    expect(discord.fake.gateway.connections.map((connection) => [connection.path, connection.closeCode])).toEqual([["/gateway", 4000], ["/gateway/resume", undefined]]);
    expect(discord.fake.gateway.connections[1]!.received.find((payload) => payload.op === 6)?.d).toMatchObject({ token: TOKEN, session_id: bot.sessionStore.get(0)!.sessionId, seq: 3 });
    expect([discord.fake.gateway.identifies, discord.fake.gateway.liveSessions, discord.fake.gateway.maxConcurrentSessions]).toEqual([1, 1, 1]);
  });

  it("op 7 Reconnect: the client closes (4200, so the session lives on) and resumes", async () => {
    someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    discord.fake.gateway.reconnect();
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.Resumed));
    expect(discord.fake.gateway.connections[0]!.closeCode).toBe(4200);
    expect(discord.fake.gateway.identifies).toBe(1);
  });

  it("a dropped socket (no close frame, 1006) is resumed too; the fake's log has each session's dispatches", async () => {
    const { general, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    discord.fake.gateway.dropConnections();
    discord.fake.from(alice).message(general.id, "during the outage");
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.Resumed));
    expect(messagesSeen(bot.dispatches)).toEqual(["during the outage"]);
    expect(discord.fake.gateway.connections[0]!.closeCode).toBe(1006);
    expect(discord.fake.gateway.dispatched().map((dispatch) => dispatch.t)).toEqual(["READY", "GUILD_CREATE", "MESSAGE_CREATE", "RESUMED"]);
  });

  it("op 9 false: the session is gone; the client identifies again and gets a new one", async () => {
    someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    const firstSession = bot.sessionStore.get(0)!.sessionId;
    discord.fake.gateway.invalidateSessions(false);
    await until(() => bot.dispatches.filter((dispatch) => dispatch.t === GatewayDispatchEvents.Ready).length === 2);
    expect(bot.sessionStore.get(0)!.sessionId).not.toBe(firstSession);
    expect(discord.fake.gateway.identifies).toBe(2);
  });

  it("op 9 true: the client resumes on the same connection", async () => {
    const { general, alice } = someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    discord.fake.gateway.invalidateSessions(true);
    discord.fake.from(alice).message(general.id, "during op 9");
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.Resumed));
    expect(messagesSeen(bot.dispatches)).toEqual(["during op 9"]);
    expect(discord.fake.gateway.connections).toHaveLength(1);
  });

});

describe("fake Discord: a zombie connection", () => {
  const discord = useFakeDiscord({ heartbeatIntervalMs: 250, identifyIntervalMs: 0 });

  it("heartbeats left unacknowledged: the client sees a zombie connection, drops it and resumes", async () => {
    someGuild(discord.fake);
    const bot = await connectBot(discord.fake);
    discord.fake.gateway.withholdHeartbeatAcks(true);
    await until(() => discord.fake.gateway.connections.length === 2);
    discord.fake.gateway.withholdHeartbeatAcks(false);
    await until(() => bot.dispatches.some((dispatch) => dispatch.t === GatewayDispatchEvents.Resumed));
    expect(discord.fake.gateway.connections[0]!.closeCode).toBe(4200);
    expect(discord.fake.gateway.identifies).toBe(1);
  });
});

describe("fake Discord: RESUME's refusals", () => {
  const discord = useFakeDiscord({ heartbeatIntervalMs: 5_000, identifyIntervalMs: 0, resumeWindowMs: 300 });

  async function session() {
    someGuild(discord.fake);
    const client = await RawGatewayClient.open(discord.fake);
    client.identify(discord.fake, GatewayIntentBits.Guilds);
    const ready = await client.next((payload) => payload.t === "READY");
    return { client, sessionId: (ready.d as { session_id: string }).session_id };
  }

  it("4007 for a sequence number the session never reached; op 9 for an unknown session", async () => {
    const { client, sessionId } = await session();
    client.close(4000);
    const ahead = await RawGatewayClient.open(discord.fake, undefined, discord.fake.resumeGatewayUrl);
    ahead.send({ op: 6, d: { token: TOKEN, session_id: sessionId, seq: 99 } });
    expect(await ahead.closed()).toBe(4007);
    const unknown = await RawGatewayClient.open(discord.fake, undefined, discord.fake.resumeGatewayUrl);
    unknown.send({ op: 6, d: { token: TOKEN, session_id: "nope", seq: 1 } });
    expect(await unknown.next((payload) => payload.op === 9)).toMatchObject({ d: false });
  });

  it("a session closed with 1000 cannot be resumed; one dropped otherwise can, until the resume window passes", async () => {
    const normal = await session();
    normal.client.close(1000);
    await until(() => discord.fake.gateway.liveSessions === 0);
    const afterNormal = await RawGatewayClient.open(discord.fake, undefined, discord.fake.resumeGatewayUrl);
    afterNormal.send({ op: 6, d: { token: TOKEN, session_id: normal.sessionId, seq: 1 } });
    expect(await afterNormal.next((payload) => payload.op === 9)).toMatchObject({ d: false });
    const dropped = await session();
    dropped.client.close(4000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const late = await RawGatewayClient.open(discord.fake, undefined, discord.fake.resumeGatewayUrl);
    late.send({ op: 6, d: { token: TOKEN, session_id: dropped.sessionId, seq: 1 } });
    expect(await late.next((payload) => payload.op === 9)).toMatchObject({ d: false });
  });
});
