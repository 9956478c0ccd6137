import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Routes } from "@discordjs/core";
import { BOT, refusal, restFor, someGuild, TOKEN, useFakeDiscord } from "./fakeDiscordFixture.js";

describe("fake Discord: REST as Discord answers it", () => {
  const discord = useFakeDiscord();

  it("answers GET /users/@me and GET /gateway/bot to @discordjs/rest, the gateway URL pointing at the fake", async () => {
    const me = (await discord.rest.get(Routes.user("@me"))) as { id: string; username: string; bot: boolean };
    expect(me).toMatchObject({ id: BOT.id, username: BOT.username, bot: true, discriminator: "0" });
    const gateway = await discord.rest.get(Routes.gatewayBot());
    expect(gateway).toEqual({ url: discord.fake.gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 1000, reset_after: 86_400_000, max_concurrency: 1 } });
    expect(discord.fake.gatewayUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/gateway$/);
  });

  it("refuses a missing, wrong or revoked token with 401 '401: Unauthorized', code 0; @discordjs/rest then drops its token", async () => {
    const none = await fetch(`${discord.fake.api}/v10/users/@me`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ message: "401: Unauthorized", code: 0 });
    const bearer = await fetch(`${discord.fake.api}/v10/users/@me`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(401);
    const wrong = restFor(discord.fake).setToken("MTAw.wrong.token");
    const error = await refusal(wrong.get(Routes.user("@me")));
    expect(error).toMatchObject({ status: 401, code: 0, message: "401: Unauthorized" });
    discord.fake.revokeToken();
    expect(await refusal(discord.rest.get(Routes.gatewayBot()))).toMatchObject({ status: 401 });
    discord.fake.restoreToken();
    // @discordjs/rest forgets its token after a 401: every later request fails until setToken is called again.
    await expect(discord.rest.get(Routes.gatewayBot())).rejects.toThrow("Expected token to be set for this request, but none was present");
    discord.rest.setToken(TOKEN);
    await expect(discord.rest.get(Routes.gatewayBot())).resolves.toMatchObject({ shards: 1 });
  });

  it("answers an unknown path 404 and a wrong method 405, in Discord's words", async () => {
    const auth = { authorization: `Bot ${TOKEN}` };
    const unknown = await fetch(`${discord.fake.api}/v10/telepathy`, { headers: auth });
    expect([unknown.status, await unknown.json()]).toEqual([404, { message: "404: Not Found", code: 0 }]);
    const wrong = await fetch(`${discord.fake.api}/v10/users/@me`, { method: "DELETE", headers: auth });
    expect([wrong.status, await wrong.json()]).toEqual([405, { message: "405: Method Not Allowed", code: 0 }]);
    const v9 = await fetch(`${discord.fake.origin}/api/v9/users/@me`, { headers: auth });
    expect(v9.status).toBe(404);
  });

  it("refuses a path id that is not a snowflake with 50035, naming the field", async () => {
    const error = await refusal(discord.rest.get(Routes.channel("general")));
    expect(error).toMatchObject({ status: 400, code: 50035, rawError: { message: "Invalid Form Body", errors: { channel_id: { _errors: [{ code: "NUMBER_TYPE_COERCE", message: 'Value "general" is not snowflake.' }] } } } });
    expect(error.message).toBe('Invalid Form Body\nchannel_id[NUMBER_TYPE_COERCE]: Value "general" is not snowflake.');
  });

  it("answers users, guild members (nick, roles) and channels, and 10013/10007/10003 for unknown ones", async () => {
    const { guild, alice, helpers, general } = someGuild(discord.fake);
    expect(await discord.rest.get(Routes.user(alice.id))).toMatchObject({ id: alice.id, username: "alice", global_name: "Alice" });
    expect(await discord.rest.get(Routes.guildMember(guild.id, alice.id))).toMatchObject({ nick: "Ally", roles: [helpers.id], user: { id: alice.id } });
    expect(await discord.rest.get(Routes.channel(general.id))).toMatchObject({ id: general.id, type: 0, guild_id: guild.id, name: "general" });
    expect(await refusal(discord.rest.get(Routes.user("1000000000000000001")))).toMatchObject({ status: 404, code: 10013, message: "Unknown User" });
    expect(await refusal(discord.rest.get(Routes.guildMember(guild.id, "1000000000000000001")))).toMatchObject({ status: 404, code: 10007, message: "Unknown Member" });
    expect(await refusal(discord.rest.get(Routes.channel("1000000000000000001")))).toMatchObject({ status: 404, code: 10003, message: "Unknown Channel" });
  });

  it("records every call by the docs' route name with its parameters, body and outcome", async () => {
    const { general } = someGuild(discord.fake);
    await discord.rest.post(Routes.channelMessages(general.id), { body: { content: "one" } });
    await refusal(discord.rest.post(Routes.channelMessages(general.id), { body: { content: "" } }));
    expect(discord.fake.callsOf("createMessage").map((call) => [call.status, call.code, call.body])).toEqual([
      [200, undefined, { content: "one" }],
      [400, 50006, { content: "" }],
    ]);
    expect(discord.fake.calls[0]).toMatchObject({ route: "createMessage", method: "POST", params: { "channel.id": general.id } });
    expect(discord.fake.calls[0]!.userAgent).toMatch(/^DiscordBot \(https:\/\/discord\.js\.org, 2\.6\.3\)/);
  });

  it("is reached over HTTP and WebSocket from another process, as a spawned turnstream reaches it", async () => {
    const { general } = someGuild(discord.fake);
    const script = `
      const [api, gateway, token, channel] = process.argv.slice(1);
      const posted = await fetch(api + "/v10/channels/" + channel + "/messages", { method: "POST", headers: { authorization: "Bot " + token, "content-type": "application/json" }, body: JSON.stringify({ content: "from a child" }) });
      const socket = new WebSocket(gateway + "?v=10&encoding=json");
      const hello = await new Promise((resolve) => socket.addEventListener("message", (event) => resolve(JSON.parse(event.data)), { once: true }));
      socket.close(1000);
      process.stdout.write(posted.status + " " + hello.op);`;
    // Asynchronously: the fake answers from this process's event loop. Node 20's WebSocket needs the flag.
    const child = await promisify(execFile)(process.execPath, ["--experimental-websocket", "--input-type=module", "-e", script, discord.fake.api, discord.fake.gatewayUrl, TOKEN, general.id], { timeout: 20_000 });
    expect(child.stdout).toBe("200 10");
    expect(discord.fake.botTexts(general.id)).toEqual(["from a child"]);
  });
});
