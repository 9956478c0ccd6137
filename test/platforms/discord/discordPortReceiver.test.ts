import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/errors.js";
import { BOT, someGuild, until, useDiscordPort } from "./portFixture.js";

/** The gateway session as a lease's receiver, start-up checks, slash commands and the thread race. */
describe("DiscordPort: receiver, start-up, slash commands", () => {
  const t = useDiscordPort();

  it("the receiver's key is the bot's public id from the token", async () => {
    const port = await t.open({}, { start: false });
    expect(port.receiver.key).toBe(`discord.${BOT.id}`);
  });

  it("stopping the receiver closes the gateway session; starting it again reconnects and messages flow", async () => {
    const { general, alice } = someGuild(t.fake);
    const port = await t.open();
    await until(() => t.fake.gateway.liveSessions === 1);
    await port.receiver.stopReceiving(0);
    await until(() => t.fake.gateway.liveSessions === 0);
    t.fake.from(alice).message(general.id, `<@${BOT.id}> while stopped`);
    port.receiver.startReceiving();
    await until(() => t.fake.gateway.liveSessions === 1);
    expect(t.fake.gateway.identifies).toBe(2);
    expect(t.fake.gateway.maxConcurrentSessions).toBe(1);
    t.fake.from(alice).message(general.id, `<@${BOT.id}> after the restart`);
    await until(() => t.events.length === 1);
    expect(t.events.map((event) => event.content.text)).toEqual(["after the restart"]);
  });

  it("connected follows the gateway session while receiving (down when Discord drops it, up once resumed); standing by, the bot being reachable", async () => {
    const port = await t.open({}, { start: false });
    const shown: boolean[] = [];
    port.connected.subscribe((up) => shown.push(up));
    port.start({ receive: false });
    await until(() => port.isConnected);
    port.receiver.startReceiving();
    await until(() => t.fake.gateway.liveSessions === 1 && port.isConnected);
    for (const connection of t.fake.gateway.server.open) connection.drop();
    await until(() => !port.isConnected);
    await until(() => port.isConnected && t.fake.gateway.liveSessions === 1, 15_000);
    await port.receiver.stopReceiving(0);
    expect(port.isConnected).toBe(true);
    // Standing by: reachable. Receiving: down until READY, up, down when dropped, up once resumed.
    expect(shown).toEqual([false, true, false, true, false, true]);
  });

  it("prepare refuses a token Discord rejects with upstream's line, as a ConfigError on discord.bot_token", async () => {
    t.fake.revokeToken();
    const port = await t.open({}, { start: false });
    const error = await port.prepare().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([{ path: "discord.bot_token", message: "Discord rejected bot token. Verify your bot_token in config.toml is correct and has not been reset." }]);
  });

  it("prepare logs the ID-list entries [discord] dropped", async () => {
    await t.open({ allowed_users: ["123", "alice"] }, { start: false });
    await t.port.prepare();
    expect(t.logs.find((line) => line.msg === "ignoring invalid entry")).toMatchObject({ reason: "invalid_id", value: "alice", label: "discord.allowed_users" });
  });

  it("registers /cancel and /reset (not models, agents, cancel-all); in a thread they become events, answered ephemerally", async () => {
    const { guild, general, alice } = someGuild(t.fake);
    await t.open();
    await until(() => t.fake.registeredCommands(guild.id).length === 2);
    expect(t.fake.registeredCommands().map((command) => command.name).sort()).toEqual(["cancel", "reset"]);
    const trigger = t.fake.from(alice).message(general.id, `<@${BOT.id}> long job`);
    await until(() => t.events.length === 1);
    const used = t.fake.from(alice).slash(trigger.id, "cancel");
    await until(() => t.events.length === 2);
    expect(t.events[1]).toMatchObject({ event_id: `dci${used.id}`, channel: { id: general.id, type: "thread", thread_id: trigger.id }, sender: { id: alice.id }, content: { text: "/cancel" } });
    await until(() => t.fake.interaction(used.id)?.response !== undefined);
    expect(t.fake.interaction(used.id)!.response).toMatchObject({ type: 4, data: { content: "🛑 Cancel requested.", flags: 64 } });
    // In a channel (not a conversation): answered, no event.
    const outside = t.fake.from(alice).slash(general.id, "reset");
    await until(() => t.fake.interaction(outside.id)?.response !== undefined);
    expect(t.fake.interaction(outside.id)!.response).toMatchObject({ data: { content: "⚠️ Use this command inside a conversation thread.", flags: 64 } });
    expect(t.events).toHaveLength(2);
  });

  it("when another bot opened the message's thread first (160004), this bot joins that thread", async () => {
    const { general, alice, otherBot } = someGuild(t.fake);
    await t.open();
    await until(() => t.fake.gateway.liveSessions === 1);
    // The race as it happens: this bot's request is on its way when the sibling opens the thread.
    t.fake.delay("startThreadFromMessage", 300);
    const trigger = t.fake.from(alice).message(general.id, `<@${BOT.id}> both of you, look`);
    await until(() => t.fake.callsOf("startThreadFromMessage").length === 1);
    t.fake.from(otherBot).startThread(general.id, "sibling's thread", { fromMessage: trigger.id });
    await until(() => t.events.length === 1);
    expect(t.fake.callsOf("startThreadFromMessage").map((call) => call.code)).toEqual([160004]);
    expect(t.events[0]!.channel).toEqual({ id: general.id, type: "thread", thread_id: trigger.id });
    expect(t.fake.threads(general.id)).toMatchObject([{ id: trigger.id, name: "sibling's thread", ownerId: otherBot.id }]);
    expect(t.logs.find((line) => line.msg === "discord joining the thread another bot opened from the same message")).toMatchObject({ reason: "thread_exists", threadId: trigger.id });
  });
});

describe("DiscordPort: connecting", () => {
  const t = useDiscordPort();

  it("a gateway Discord does not hand out at first is asked for again until it is", async () => {
    someGuild(t.fake);
    // @discordjs/rest tries a 5xx 3 more times itself: four failures fail one connect.
    t.fake.failNext("getGatewayBot", { status: 503, code: 0, message: "Service Unavailable" }, 4);
    await t.open();
    await until(() => t.fake.gateway.liveSessions === 1);
    expect(t.logs.find((line) => line.msg === "discord gateway connection failed")).toMatchObject({ reason: "connect_failed", retryInMs: 1000 });
  });
});

describe("DiscordPort: MESSAGE CONTENT not enabled", () => {
  const t = useDiscordPort({ privilegedIntents: 0 });

  it("logs upstream's line when Discord refuses the privileged intent (close 4014)", async () => {
    someGuild(t.fake);
    await t.open();
    await until(() => t.logs.some((line) => line.msg.startsWith("Discord rejected privileged intents.")));
    expect(t.logs.find((line) => line.msg.startsWith("Discord rejected privileged intents."))).toMatchObject({ reason: "disallowed_intents" });
    // A refusal that would repeat is not retried.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(t.fake.gateway.connections).toHaveLength(1);
    expect(t.logs.some((line) => line.msg === "discord gateway connection failed")).toBe(false);
  });
});
