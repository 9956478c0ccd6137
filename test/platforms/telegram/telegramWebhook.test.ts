import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { ConfigError } from "../../../src/config/errors.js";
import { TelegramPort } from "../../../src/platforms/telegram/index.js";
import { MAX_UPDATE_BYTES } from "../../../src/platforms/telegram/webhookListener.js";
import type { TelegramConfig } from "../../../src/config/sections/telegram.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { someChats, until, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { telegramConfig } from "./telegramTestConfig.js";

// TelegramPort in webhook mode against the fake Bot API, which delivers updates to the port's
// listener as Telegram does (with the secret header, retrying until a 2xx); forged requests are
// raw HTTP. Polling: telegramPort.test.ts; what the guard decides: webhookGuard.test.ts.

const SECRET = "hook_secret-1";
const PATH = "/webhook/telegram";
const REFUSED = "telegram webhook request refused";

const fake = useFakeBotApi({ webhookRetryDelayMs: 50 });
const ports: TelegramPort[] = [];
afterEach(async () => {
  await Promise.all(ports.splice(0).map((port) => port.close()));
});

function webhookPort(overrides: Partial<TelegramConfig> = {}) {
  const { logger, records } = captureLogs();
  const config = telegramConfig(fake.api, { mode: "webhook", webhook_listen: "127.0.0.1:0", secret_token: SECRET, webhook_path: PATH, ...overrides });
  const port = new TelegramPort({ config, logger, backoff: { initialMs: 50, maxMs: 200, unauthorizedMs: 200 } });
  ports.push(port);
  const events: GatewayEvent[] = [];
  port.events.subscribe((event) => events.push(event));
  return { port, events, records, refusals: () => records.filter((r) => r.msg === REFUSED) };
}

/** A port listening at `url`, its bot known. */
async function listening(overrides: Partial<TelegramConfig> = {}) {
  const started = webhookPort(overrides);
  await started.port.prepare();
  started.port.start();
  await until(() => started.port.isConnected);
  return { ...started, url: `${started.port.webhookUrl!}${PATH}` };
}

/** A port listening, and the fake told to deliver to it (as an operator's setWebhook would). */
async function delivering(overrides: Partial<TelegramConfig> = {}) {
  const started = await listening(overrides);
  await fake.client.setWebhook(started.url, { secret_token: SECRET });
  return started;
}

/** A raw POST to the listener with chosen headers and body. */
async function post(url: string, body: string | Update, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  return { status: response.status, allow: response.headers.get("allow"), body: await response.text() };
}

let nextUpdateId = 10_000;
const ALICE = { id: 1001, is_bot: false, first_name: "Alice", username: "alice_tg" };

/** An update as Telegram posts one for a private message to the bot, made here (the fake's queue never sees it): what a forged or replayed POST carries. */
function aMessage(text = "hello", kind: "message" | "edited_message" = "message"): Update {
  const id = nextUpdateId++;
  const message = { message_id: id, date: 1_700_000_000, chat: { id: ALICE.id, type: "private", first_name: ALICE.first_name }, from: ALICE, text };
  return { update_id: id, [kind]: kind === "message" ? message : { ...message, edit_date: 1_700_000_060 } } as unknown as Update;
}

describe("TelegramPort webhook: registration", () => {
  it("webhookUrl is undefined until the listener is bound, and in polling mode", async () => {
    const { port } = webhookPort();
    expect(port.webhookUrl).toBeUndefined();
    await port.prepare();
    expect(port.webhookUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await port.close();
    expect(port.webhookUrl).toBeUndefined();
    expect(new TelegramPort({ config: telegramConfig(fake.api), logger: captureLogs().logger }).webhookUrl).toBeUndefined();
  });

  it("registers webhook_url with setWebhook, the secret_token and allowed_updates, once the bot is known", async () => {
    const url = "https://bot.example.invalid/webhook/telegram";
    const { port, records } = webhookPort({ webhook_url: url });
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    expect(fake.api.calls.map((call) => call.method)).toEqual(["getMe", "setWebhook"]);
    expect(fake.api.callsOf("setWebhook")[0]?.params).toEqual({ url, secret_token: SECRET, allowed_updates: ["message", "callback_query"] });
    expect(fake.api.webhook.setting).toMatchObject({ url, secretToken: SECRET, allowedUpdates: ["message", "callback_query"] });
    expect(records.find((r) => r.msg === "telegram webhook registered")).toMatchObject({ url });
    expect(records.find((r) => r.msg === "telegram webhook listening")).toMatchObject({ url: port.webhookUrl, path: PATH });
  });

  it("without webhook_url, logs that the operator registers it and calls no setWebhook", async () => {
    const { port, records } = webhookPort();
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    expect(fake.api.callsOf("setWebhook")).toEqual([]);
    expect(records.find((r) => r.reason === "no_webhook_url")).toMatchObject({ level: 30, path: PATH });
  });

  it("a setWebhook that fails is retried, its episode logged once", async () => {
    const { port, records } = webhookPort({ webhook_url: "https://bot.example.invalid/webhook/telegram" });
    fake.api.failNext("setWebhook", { error_code: 502, description: "Bad Gateway" }, 3);
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    expect(records.filter((r) => r.msg === "telegram webhook set-up failed")).toMatchObject([{ reason: "server_error", status: 502 }]);
    expect(records.find((r) => r.msg === "telegram webhook set-up recovered")).toMatchObject({ failures: 3 });
  });

  it("a listen address that cannot be bound stops prepare() with a ConfigError naming telegram.webhook_listen", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const listen = `127.0.0.1:${(taken.address() as AddressInfo).port}`;
      const { port } = webhookPort({ webhook_listen: listen });
      const error = await port.prepare().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).lines()).toEqual([`telegram.webhook_listen: ${listen} cannot be listened on (EADDRINUSE)`]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("TelegramPort webhook: without secret_token", () => {
  it("warns once at start-up that requests are not validated, and takes a request without the header", async () => {
    const { port, events, records } = webhookPort({ secret_token: undefined });
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    expect(records.filter((r) => r.reason === "secret_token_unset")).toMatchObject([{ level: 40, msg: "telegram webhook requests are not validated (no [telegram] secret_token)" }]);
    const answered = post(`${port.webhookUrl!}${PATH}`, aMessage("no secret here"));
    await until(() => events.length === 1);
    port.settled(events[0]!);
    expect((await answered).status).toBe(200);
  });

  it("with secret_token set, says nothing of it", async () => {
    const { records } = await listening();
    expect(records.filter((r) => r.reason === "secret_token_unset")).toEqual([]);
  });
});

describe("TelegramPort webhook: delivery", () => {
  it("takes Telegram's delivery (the secret header right) and answers 200 only once the event is settled", async () => {
    const { alice, dm } = someChats(fake.api);
    const { port, events } = await delivering();
    const update = fake.api.from(alice).text(dm.id, "over the webhook");
    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ event_id: `tg${update.update_id}`, content: { text: "over the webhook" } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Not settled: the delivery is still waiting for its answer, the update still Telegram's.
    expect(fake.api.webhook.deliveries).toEqual([]);
    expect(fake.api.updates.pending().map((each) => each.update_id)).toEqual([update.update_id]);
    port.settled(events[0]!);
    await until(() => fake.api.webhook.deliveries.length === 1);
    expect(fake.api.webhook.deliveries[0]).toMatchObject({ update_id: update.update_id, secretToken: SECRET, status: 200 });
    expect(fake.api.updates.pending()).toEqual([]);
    expect(events).toHaveLength(1);
  });

  it("an update that makes no event (an edit) is answered 200 at once", async () => {
    const { events, url } = await listening();
    expect(await post(url, aMessage("edited", "edited_message"), { "x-telegram-bot-api-secret-token": SECRET })).toMatchObject({ status: 200 });
    expect(events).toEqual([]);
  });

  it("a retry of an update whose event is under way makes no second event; both are answered once it is settled", async () => {
    const { port, events, url, records } = await listening();
    const update = aMessage("once");
    const headers = { "x-telegram-bot-api-secret-token": SECRET };
    const first = post(url, update, headers);
    await until(() => events.length === 1);
    const retry = post(url, update, headers);
    await until(() => records.some((r) => r.reason === "under_way"));
    expect(records.find((r) => r.reason === "under_way")).toMatchObject({ level: 20, update_id: update.update_id });
    expect(events).toHaveLength(1);
    port.settled(events[0]!);
    expect((await first).status).toBe(200);
    expect((await retry).status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it("answers 503 until the bot is identified, so Telegram delivers again", async () => {
    const { port, events, refusals } = webhookPort();
    fake.api.failNext("getMe", { error_code: 502, description: "Bad Gateway" });
    await port.prepare();
    const url = `${port.webhookUrl!}${PATH}`;
    const update = aMessage("early");
    expect(await post(url, update, { "x-telegram-bot-api-secret-token": SECRET })).toMatchObject({ status: 503 });
    expect(refusals()).toMatchObject([{ reason: "not_ready", status: 503 }]);
    expect(events).toEqual([]);
    port.start();
    await until(() => port.isConnected);
    const answered = post(url, update, { "x-telegram-bot-api-secret-token": SECRET });
    await until(() => events.length === 1);
    port.settled(events[0]!);
    expect((await answered).status).toBe(200);
  });
});

describe("TelegramPort webhook: refusals", () => {
  it("refuses a missing or wrong secret token with 401, Telegram's own delivery included, and logs the run once", async () => {
    const { alice, dm } = someChats(fake.api);
    const { events, url, refusals } = await listening();
    const update = aMessage();
    expect((await post(url, update)).status).toBe(401);
    expect((await post(url, update, { "x-telegram-bot-api-secret-token": "" })).status).toBe(401);
    expect((await post(url, update, { "x-telegram-bot-api-secret-token": `${SECRET}x` })).status).toBe(401);
    expect((await post(url, update, { "x-telegram-bot-api-secret-token": "hook_secret-2" })).status).toBe(401);
    // Telegram delivering with a stale secret: refused and retried, every retry refused.
    await fake.client.setWebhook(url, { secret_token: "stale_secret" });
    fake.api.from(alice).text(dm.id, "with the old secret");
    await until(() => fake.api.webhook.deliveries.length >= 3);
    expect(fake.api.webhook.deliveries.every((delivery) => delivery.status === 401)).toBe(true);
    expect(events).toEqual([]);
    expect(refusals().map((r) => [r.reason, r.status])).toEqual([
      ["secret_token_missing", 401],
      ["secret_token_wrong", 401],
    ]);
  });

  it("a new run of refusals after an accepted update is logged again", async () => {
    const { port, events, url, refusals } = await listening();
    const wrong = { "x-telegram-bot-api-secret-token": "nope" };
    expect((await post(url, aMessage("a"), wrong)).status).toBe(401);
    expect((await post(url, aMessage("b"), wrong)).status).toBe(401);
    const accepted = post(url, aMessage("c"), { "x-telegram-bot-api-secret-token": SECRET });
    await until(() => events.length === 1);
    port.settled(events[0]!);
    expect((await accepted).status).toBe(200);
    expect((await post(url, aMessage("d"), wrong)).status).toBe(401);
    expect(refusals().map((r) => r.reason)).toEqual(["secret_token_wrong", "secret_token_wrong"]);
  });

  it("a scanner alternating refusals is logged once per reason, not once per request", async () => {
    const { port, url, refusals } = await listening();
    for (let i = 0; i < 10; i++) {
      expect((await fetch(url)).status).toBe(405);
      expect((await post(`${port.webhookUrl!}/.env`, "{}")).status).toBe(404);
      expect((await post(url, aMessage(), { "x-telegram-bot-api-secret-token": "guess" })).status).toBe(401);
    }
    expect(refusals().map((r) => r.reason)).toEqual(["method_not_allowed", "not_found", "secret_token_wrong"]);
  });

  it("405 with Allow: POST for another method, 404 for another path, before the secret is looked at", async () => {
    const { port, refusals } = await listening();
    const get = await fetch(`${port.webhookUrl!}${PATH}`);
    expect([get.status, get.headers.get("allow")]).toEqual([405, "POST"]);
    expect((await post(`${port.webhookUrl!}/webhook/other`, aMessage(), { "x-telegram-bot-api-secret-token": SECRET })).status).toBe(404);
    expect((await post(`${port.webhookUrl!}/`, "{}")).status).toBe(404);
    expect(refusals().map((r) => [r.reason, r.status])).toEqual([
      ["method_not_allowed", 405],
      ["not_found", 404],
    ]);
  });

  it("400 for a body that is no update", async () => {
    const { events, url, refusals } = await listening();
    const headers = { "x-telegram-bot-api-secret-token": SECRET };
    for (const body of ["not json", "[]", "null", '{"message":{}}', '{"update_id":"7"}', '{"update_id":1.5}']) {
      expect((await post(url, body, headers)).status).toBe(400);
    }
    expect(events).toEqual([]);
    expect(refusals()).toMatchObject([{ reason: "unparsable", status: 400 }]);
  });

  it("413 for a body past 1 MiB, and the listener still serves the next request", async () => {
    const { port, events, url, refusals } = await listening();
    const status = await rawPost(url, Buffer.alloc(MAX_UPDATE_BYTES + 1, 0x20), { "x-telegram-bot-api-secret-token": SECRET });
    expect(status).toBe(413);
    expect(refusals()).toMatchObject([{ reason: "too_large", status: 413 }]);
    // Exactly 1 MiB is read (and is an update).
    const update = aMessage("padded");
    const json = JSON.stringify(update);
    const padded = post(url, json + " ".repeat(MAX_UPDATE_BYTES - Buffer.byteLength(json)), { "x-telegram-bot-api-secret-token": SECRET });
    await until(() => events.length === 1);
    port.settled(events[0]!);
    expect((await padded).status).toBe(200);
  });

  it("trusted_source_only refuses a source outside Telegram's subnets with 403, and takes one forwarded from them", async () => {
    const { port, events, url, refusals } = await listening({ trusted_source_only: true });
    const secret = { "x-telegram-bot-api-secret-token": SECRET };
    expect((await post(url, aMessage(), secret)).status).toBe(403);
    expect((await post(url, aMessage(), { ...secret, "x-forwarded-for": "203.0.113.9, 149.154.167.1" })).status).toBe(403);
    expect(refusals()).toMatchObject([{ reason: "untrusted_source", status: 403 }]);
    expect(events).toEqual([]);
    const forwarded = post(url, aMessage("via the proxy"), { ...secret, "x-forwarded-for": "149.154.167.1, 10.0.0.2" });
    await until(() => events.length === 1);
    port.settled(events[0]!);
    expect((await forwarded).status).toBe(200);
    // From Telegram's subnet, the secret is still required.
    expect((await post(url, aMessage(), { "x-real-ip": "91.108.4.10" })).status).toBe(401);
  });
});

/** A POST over node:http that reads the status even when the server stops reading the body. */
function rawPost(url: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", "content-length": body.length, ...headers } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end(body);
  });
}
