import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Update } from "grammy/types";
import { afterEach, describe, expect, it } from "vitest";
import { refusal, someChats, TOKEN, until, useFakeBotApi } from "./fakeBotApiFixture.js";

/** A webhook listener on 127.0.0.1 that checks the secret header as turnstream's will, answering `status()` otherwise. */
class Receiver {
  readonly received: { headers: IncomingHttpHeaders; update: Update }[] = [];
  status: () => number = () => 200;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(secret: string | undefined): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const update = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Update;
        receiver!.received.push({ headers: request.headers, update });
        const refused = secret !== undefined && request.headers["x-telegram-bot-api-secret-token"] !== secret;
        response.writeHead(refused ? 401 : receiver!.status()).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/telegram`);
    return receiver;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let clock = Date.now();

describe("fake Bot API: webhook mode", () => {
  const fake = useFakeBotApi({ webhookRetryDelayMs: 100, now: () => clock });
  const receivers: Receiver[] = [];
  const receiver = async (secret?: string) => {
    const started = await Receiver.start(secret);
    receivers.push(started);
    return started;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((each) => each.close()));
    clock += 10_000;
  });

  it("checks setWebhook: an http(s) URL, a secret token of 1–256 characters of A-Za-z0-9_-", async () => {
    for (const url of ["ftp://example.org/hook", "not a url"]) {
      expect((await refusal(fake.client.setWebhook(url))).description).toBe("Bad Request: invalid webhook URL specified");
    }
    expect((await refusal(fake.client.setWebhook("https://example.org/hook", { secret_token: "bad secret!" }))).description).toBe(
      "Bad Request: secret token contains unallowed characters",
    );
    expect((await refusal(fake.client.setWebhook("https://example.org/hook", { secret_token: "s".repeat(257) }))).description).toBe(
      "Bad Request: secret token is too long",
    );
  });

  it("POSTs each update as JSON with the secret token header; a delivered update is no longer pending", async () => {
    const { alice, dm } = someChats(fake.api);
    const hook = await receiver("s3cret_token-1");
    await fake.client.setWebhook(hook.url, { secret_token: "s3cret_token-1" });
    const pushed = fake.api.from(alice).text(dm.id, "over the webhook");
    await until(() => fake.api.webhook.deliveries.length === 1);
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.headers["x-telegram-bot-api-secret-token"]).toBe("s3cret_token-1");
    expect(hook.received[0]!.headers["content-type"]).toBe("application/json");
    expect(hook.received[0]!.update).toEqual(pushed);
    expect(fake.api.webhook.deliveries[0]).toMatchObject({ update_id: pushed.update_id, status: 200, error: undefined });
    expect((await fake.client.getWebhookInfo()).pending_update_count).toBe(0);
  });

  it("retries a non-2xx answer later, and getWebhookInfo tells the last error meanwhile", async () => {
    const { alice, dm } = someChats(fake.api);
    const hook = await receiver();
    let answers = 0;
    hook.status = () => (++answers === 1 ? 500 : 200);
    await fake.client.setWebhook(hook.url);
    fake.api.from(alice).text(dm.id, "retry me");
    await until(() => fake.api.webhook.deliveries.length === 1);
    const info = await fake.client.getWebhookInfo();
    expect(info).toMatchObject({ url: hook.url, pending_update_count: 1, last_error_message: "Wrong response from the webhook: 500 Internal Server Error" });
    await until(() => fake.api.webhook.deliveries.length === 2);
    expect(fake.api.webhook.deliveries.map((delivery) => delivery.status)).toEqual([500, 200]);
    expect(hook.received.map((each) => each.update.update_id)).toEqual([hook.received[0]!.update.update_id, hook.received[0]!.update.update_id]);
  });

  it("a webhook that refuses a wrong secret gets the delivery retried; a test can forge a call with any header", async () => {
    const { alice, dm } = someChats(fake.api);
    const hook = await receiver("right");
    await fake.client.setWebhook(hook.url, { secret_token: "wrong" });
    const update = fake.api.from(alice).text(dm.id, "who is it?");
    await until(() => fake.api.webhook.deliveries.length >= 2);
    expect(fake.api.webhook.deliveries.slice(0, 2).map((delivery) => [delivery.status, delivery.error])).toEqual([
      [401, "Wrong response from the webhook: 401 Unauthorized"],
      [401, "Wrong response from the webhook: 401 Unauthorized"],
    ]);
    expect((await fake.api.postUpdate(hook.url, update, { "X-Telegram-Bot-Api-Secret-Token": "right" })).status).toBe(200);
    expect((await fake.api.postUpdate(hook.url, update)).status).toBe(401);
  });

  it("while a webhook is set getUpdates is a 409; setting one ends a waiting poll with 409", async () => {
    const hook = await receiver();
    const waiting = refusal(fake.client.getUpdates({ timeout: 30 }));
    await until(() => fake.api.updates.pollersInFlight === 1);
    await fake.client.setWebhook(hook.url);
    expect((await waiting).description).toBe("Conflict: terminated by setWebhook request");
    const error = await refusal(fake.client.getUpdates());
    expect([error.error_code, error.description]).toEqual([
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    ]);
  });

  it("answers setWebhook and deleteWebhook with Telegram's descriptions, once a second at most", async () => {
    const hook = await receiver();
    const call = async (method: string, body: object) => {
      const response = await fetch(`${fake.api.root}/bot${TOKEN}/${method}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, ...((await response.json()) as object) };
    };
    expect(await call("setWebhook", { url: hook.url })).toMatchObject({ ok: true, result: true, description: "Webhook was set" });
    expect(await call("setWebhook", { url: hook.url })).toMatchObject({ status: 429, parameters: { retry_after: 1 }, description: "Too Many Requests: retry after 1" });
    clock += 1_000;
    expect(await call("setWebhook", { url: hook.url })).toMatchObject({ ok: true, description: "Webhook is already set" });
    expect(await call("deleteWebhook", {})).toMatchObject({ ok: true, description: "Webhook was deleted" });
    expect(await call("deleteWebhook", {})).toMatchObject({ ok: true, description: "Webhook is already deleted" });
    await expect(fake.client.getUpdates()).resolves.toEqual([]);
  });

  it("drop_pending_updates forgets what was waiting", async () => {
    const { alice, dm } = someChats(fake.api);
    fake.api.from(alice).text(dm.id, "stale");
    await fake.client.deleteWebhook({ drop_pending_updates: true });
    expect(await fake.client.getUpdates()).toEqual([]);
  });
});
