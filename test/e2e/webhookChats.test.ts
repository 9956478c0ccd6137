import { createHmac } from "node:crypto";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createBroker } from "../../src/broker/createBroker.js";
import { ConfigError } from "../../src/config/index.js";
import { captureLogs } from "../helpers/logCapture.js";
import { startStack, until, type Stack } from "../helpers/stack.js";

// Issue 40's webhook acceptance through the broker as configured: [webhooks] in the config, the
// listener started and stopped with the broker, each delivery a proactive turn answered over the
// gateway protocol (the dev gateway's WebSocket) by the scripted agent. The listener's every refusal
// and limit in detail: test/webhooks/webhookListener.test.ts.

const SECRET = "a-webhook-secret-of-some-length";
const sign = (body: string | Buffer) => `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function webhookStack(): Promise<{ stack: Stack; url: string }> {
  stack = await startStack({
    config: {
      triage: { enabled: true, cooldown_secs: 0 },
      webhooks: {
        listen: "127.0.0.1:0",
        max_body_bytes: 1_048_576,
        endpoints: [{ name: "alerts", path: "/hooks/alerts", secret: SECRET, platform: "line", channel: "ops", event_id_pointer: "/id", prompt: "say {{/title}}" }],
      },
    },
  });
  const listening = stack.records.find((record) => record.msg === "webhooks listening");
  if (listening === undefined) throw new Error("the webhook listener did not start with the broker");
  return { stack, url: `${String(listening.url)}/hooks/alerts` };
}

/** A POST as a webhook sender makes it; resolves with the status and body. */
function post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    // A refusal before the body is read may close the socket under a large write.
    req.on("error", (err: NodeJS.ErrnoException) => (err.code === "EPIPE" || err.code === "ECONNRESET" ? resolve({ status: -1, body: err.code }) : reject(err)));
    req.end(body);
  });
}

describe("[webhooks] on a broker", () => {
  it("a signed POST → 202 and one proactive turn; the same event_id again → 202 and no second turn", async () => {
    const { stack: s, url } = await webhookStack();
    const body = JSON.stringify({ id: "alert-1", title: "disk almost full" });
    const first = await post(url, body, { "x-hub-signature-256": sign(body) });
    expect(first.status).toBe(202);
    expect(JSON.parse(first.body)).toMatchObject({ event_id: "webhook:alerts:alert-1", duplicate: false });
    expect(await until(() => s.replies.length >= 1, 15_000)).toBe(true);
    // No gateway event started it: the reply answers none.
    expect(s.replies[0]).toMatchObject({ reply_to: "", platform: "line", channel: { id: "ops" } });
    expect(s.replies[0]?.content.text).toContain("disk almost full");
    const again = await post(url, body, { "x-hub-signature-256": sign(body) });
    expect(again.status).toBe(202);
    expect(JSON.parse(again.body)).toMatchObject({ event_id: "webhook:alerts:alert-1", duplicate: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(s.replies).toHaveLength(1);
    expect(s.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(1);
  });

  it("a bad signature → 401 and nothing queued; a 2 MB body over the 1 MB limit → 413", async () => {
    const { stack: s, url } = await webhookStack();
    const body = JSON.stringify({ id: "alert-2", title: "forged" });
    expect((await post(url, body, { "x-hub-signature-256": sign("something else") })).status).toBe(401);
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const refused = await post(url, big, { "x-hub-signature-256": sign(big) });
    expect([413, -1]).toContain(refused.status);
    if (refused.status === -1) expect(s.records.some((record) => record.msg.startsWith("webhook") && record["reason"] === "body_too_large")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.replies).toEqual([]);
    expect(s.records.filter((record) => record.msg === "turn started")).toEqual([]);
  });

  it("an address it cannot listen on stops start-up with one line naming webhooks.listen", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const broker = createBroker({
        logger: captureLogs().logger,
        turnHandler: () => [],
        config: { gateway: { url: "ws://127.0.0.1:9/ws" }, webhooks: { listen: `127.0.0.1:${port}`, endpoints: [{ path: "/h", secret: SECRET, platform: "line", channel: "ops" }] } },
      });
      const failed = await broker.start().then(() => undefined, (err: unknown) => err);
      expect(failed).toBeInstanceOf(ConfigError);
      expect((failed as ConfigError).message).toBe(`webhooks.listen: 127.0.0.1:${port} cannot be listened on (EADDRINUSE)`);
    } finally {
      taken.close();
    }
  });
});
