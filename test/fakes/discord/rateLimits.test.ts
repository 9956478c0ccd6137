import { describe, expect, it } from "vitest";
import { API, Routes } from "@discordjs/core";
import { HTTPError, RateLimitError, RESTEvents, type RateLimitData } from "@discordjs/rest";
import { refusal, restFor, someGuild, TOKEN, useFakeDiscord } from "./fakeDiscordFixture.js";

/**
 * How @discordjs/rest 2.6.3 meets Discord's 429s and 5xx, checked against the fake (what the adapter will see):
 * - A 429 never reaches the caller: the client waits and sends the same request again, without counting it
 *   against `retries` (so 429s are retried indefinitely). It does not read the body's `retry_after`: with a
 *   route's bucket headers it waits until X-RateLimit-Reset-After (+ `offset`, 50 ms), without them
 *   Retry-After (whole seconds, rounded up by Discord) + offset. X-RateLimit-Global blocks every route.
 * - Bucket headers on ordinary answers (X-RateLimit-Remaining: 0) make it wait before the next request of
 *   that route and channel, emitting RESTEvents.RateLimited: a well-behaved client meets few 429s.
 * - `rejectOnRateLimit` (routes or a predicate) turns a limit into a RateLimitError, for a caller that
 *   wants to schedule the retry itself: `retryAfter` is Retry-After in ms (+ offset), `timeToReset` the
 *   bucket's reset.
 * - A 5xx is retried at once up to `retries` (3) times, then thrown as HTTPError: a POST that Discord
 *   carried out but answered 5xx can be posted twice.
 */
describe("fake Discord: rate limits and failures @discordjs/rest honours", () => {
  const discord = useFakeDiscord();

  it("answers an injected 429 as Discord does: body {message, retry_after, global}, Retry-After rounded up, bucket headers", async () => {
    const { general } = someGuild(discord.fake);
    discord.fake.failNext("createMessage", { status: 429, retryAfter: 1.337 });
    const answer = await fetch(`${discord.fake.api}/v10/channels/${general.id}/messages`, { method: "POST", headers: { authorization: `Bot ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ content: "hi" }) });
    expect(answer.status).toBe(429);
    expect(await answer.json()).toEqual({ message: "You are being rate limited.", retry_after: 1.337, global: false });
    expect(Object.fromEntries([...answer.headers].filter(([name]) => /retry-after|x-ratelimit/.test(name)))).toMatchObject({
      "retry-after": "2",
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset-after": "1.337",
      "x-ratelimit-scope": "user",
    });
    discord.fake.failNext("createMessage", { status: 429, retryAfter: 3, global: true });
    const global = await fetch(`${discord.fake.api}/v10/channels/${general.id}/messages`, { method: "POST", headers: { authorization: `Bot ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ content: "hi" }) });
    expect(await global.json()).toEqual({ message: "You are being rate limited.", retry_after: 3, global: true });
    expect([global.headers.get("x-ratelimit-global"), global.headers.get("x-ratelimit-scope"), global.headers.get("x-ratelimit-bucket")]).toEqual(["true", "global", null]);
  });

  it("a 429 is retried by the client after X-RateLimit-Reset-After: the call resolves, later, and the message is sent once", async () => {
    const { general } = someGuild(discord.fake);
    discord.fake.failNext("createMessage", { status: 429, retryAfter: 0.4 });
    const started = Date.now();
    const sent = await new API(discord.rest).channels.createMessage(general.id, { content: "after the limit" });
    const waited = Date.now() - started;
    expect(sent.content).toBe("after the limit");
    expect(waited).toBeGreaterThanOrEqual(400);
    expect(waited).toBeLessThan(1000); // not the whole second of Retry-After
    expect(discord.fake.callsOf("createMessage").map((call) => call.status)).toEqual([429, 200]);
    expect(discord.fake.botTexts(general.id)).toEqual(["after the limit"]);
  });

  it("a global 429 holds back every route until Retry-After", async () => {
    const { general } = someGuild(discord.fake);
    discord.fake.failNext("createMessage", { status: 429, retryAfter: 0.2, global: true });
    const api = new API(discord.rest);
    const started = Date.now();
    const posting = api.channels.createMessage(general.id, { content: "x" });
    await expect.poll(() => discord.fake.callsOf("createMessage")[0]?.status).toBe(429);
    await api.channels.get(general.id);
    // Retry-After is 1 (0.2 rounded up): the channel read waited for it too.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await posting;
  });

  it("with a route's bucket (2 per 600 ms), the client waits by the headers before the third call instead of meeting a 429", async () => {
    const { general } = someGuild(discord.fake);
    discord.fake.rateLimit("createMessage", { limit: 2, windowMs: 600 });
    const limited: RateLimitData[] = [];
    discord.rest.on(RESTEvents.RateLimited, (data) => void limited.push(data));
    const api = new API(discord.rest);
    const started = Date.now();
    for (const content of ["one", "two", "three"]) await api.channels.createMessage(general.id, { content });
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(discord.fake.callsOf("createMessage").map((call) => call.status)).toEqual([200, 200, 200]);
    expect(limited).toMatchObject([{ route: "/channels/:id/messages", global: false, limit: 2 }]);
    // Without waiting, the third call in the window is a 429 with the bucket's headers.
    discord.fake.rateLimit("createMessage", { limit: 1, windowMs: 60_000 });
    const other = discord.fake.addChannel(discord.fake.world.directory.guilds()[0]!.id, "other");
    const headers = { authorization: `Bot ${TOKEN}`, "content-type": "application/json" };
    const url = `${discord.fake.api}/v10/channels/${other.id}/messages`;
    const first = await fetch(url, { method: "POST", headers, body: JSON.stringify({ content: "a" }) });
    expect([first.status, first.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    const second = await fetch(url, { method: "POST", headers, body: JSON.stringify({ content: "b" }) });
    expect([second.status, second.headers.get("retry-after"), second.headers.get("x-ratelimit-scope")]).toEqual([429, "60", "user"]);
  });

  it("rejectOnRateLimit gives the caller a RateLimitError with retryAfter instead of waiting", async () => {
    const { general } = someGuild(discord.fake);
    const rest = restFor(discord.fake, { rejectOnRateLimit: ["/channels"] });
    discord.fake.failNext("createMessage", { status: 429, retryAfter: 2.5, scope: "shared" });
    const error = await new API(rest).channels.createMessage(general.id, { content: "x" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    // retryAfter is Retry-After (3, rounded up from 2.5) + offset; timeToReset the bucket's Reset-After (+ offset twice).
    expect(error).toMatchObject({ retryAfter: 3050, scope: "shared", global: false, route: "/channels/:id/messages" });
    expect((error as RateLimitError).timeToReset).toBeGreaterThan(2400);
    expect((error as RateLimitError).timeToReset).toBeLessThanOrEqual(2600);
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  });

  it("a 5xx is retried three times by the client, then thrown as HTTPError; delays slow a route down", async () => {
    const { general } = someGuild(discord.fake);
    const api = new API(discord.rest);
    discord.fake.failNext("createMessage", { status: 502, code: 0, message: "502: Bad Gateway" }, 2);
    await api.channels.createMessage(general.id, { content: "third time lucky" });
    expect(discord.fake.callsOf("createMessage").map((call) => call.status)).toEqual([502, 502, 200]);
    discord.fake.failNext("getChannel", { status: 500, code: 0, message: "500: Internal Server Error" }, 4);
    expect(await api.channels.get(general.id).catch((caught: unknown) => caught)).toBeInstanceOf(HTTPError);
    expect(discord.fake.callsOf("getChannel")).toHaveLength(4);
    discord.fake.delay("getChannel", 300);
    const started = Date.now();
    await api.channels.get(general.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect((await refusal(discord.rest.get(Routes.channel("1000000000000000001")))).code).toBe(10003);
  });
});
