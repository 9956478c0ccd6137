import { mkdirSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { DevGateway, type Refusal } from "../../src/devgateway/devGateway.js";
import { browserTestsEnabled, launchChromium } from "../helpers/browser.js";
import { startStack, until, type Stack } from "../helpers/stack.js";

const artifacts = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

/** Every JSON message a WebSocket receives, in order. */
function inbox(ws: WebSocket): unknown[] {
  const messages: unknown[] = [];
  ws.on("message", (data) => messages.push(JSON.parse(data.toString())));
  return messages;
}

/** A WebSocket as a browser opens it (`origin`) or a broker does (none). */
function open(url: string, origin?: string): Promise<WebSocket> {
  const ws = new WebSocket(url, origin === undefined ? {} : { origin });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

/** The HTTP status a WebSocket upgrade was refused with. */
function refusedWith(url: string): Promise<number | undefined> {
  const ws = new WebSocket(url);
  return new Promise((resolve) => {
    ws.once("unexpected-response", (_request, response) => resolve(response.statusCode));
    ws.once("open", () => (ws.close(), resolve(undefined)));
    ws.once("error", () => resolve(undefined));
  });
}

function get(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, type: String(response.headers["content-type"]), body }));
    })
      .on("error", reject)
      .end();
  });
}

describe("the dev gateway's chat page and /ui socket (no browser)", () => {
  let gateway: DevGateway | undefined;
  const sockets: WebSocket[] = [];
  afterEach(async () => {
    for (const ws of sockets.splice(0)) ws.terminate();
    await gateway?.close();
    gateway = undefined;
  });

  it("GET / serves the page as HTML (with the token; 401 without)", async () => {
    gateway = await DevGateway.start({ token: "secret" });
    expect((await get(`http://127.0.0.1:${gateway.port}/`)).status).toBe(401);
    const page = await get(gateway.pageUrl);
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    expect(page.body).toContain("<!doctype html>");
    expect(page.body).toContain('"/ui"');
    expect(page.body).not.toMatch(/innerHTML|<script\s+src|<link\s/);
  });

  it("/ui and /ws refuse a wrong or missing token with 401", async () => {
    gateway = await DevGateway.start({ token: "secret" });
    const base = `ws://127.0.0.1:${gateway.port}`;
    expect(await refusedWith(`${base}/ui?token=wrong`)).toBe(401);
    expect(await refusedWith(`${base}/ui`)).toBe(401);
    expect(await refusedWith(`${base}/ws?token=wrong`)).toBe(401);
  });

  it("a UI message reaches the brokers as event.v1; reply frames and turnFinished reach the UI", async () => {
    gateway = await DevGateway.start({ token: "secret" });
    const broker = await open(`${gateway.url}?token=secret`);
    const ui = await open(`ws://127.0.0.1:${gateway.port}/ui?token=secret`, `http://127.0.0.1:${gateway.port}`);
    sockets.push(broker, ui);
    const toBroker = inbox(broker);
    const toUi = inbox(ui);
    expect(gateway.brokerCount).toBe(1); // the UI is not a broker

    ui.send(JSON.stringify({ text: "hello", clientId: "c1" }));
    ui.send(JSON.stringify({ text: "retry", proactive: true, eventId: "evt_42" }));
    ui.send("not json");
    ui.send(JSON.stringify({ text: "" }));
    expect(await until(() => toBroker.length >= 2, 5_000)).toBe(true);
    expect(toBroker[0]).toMatchObject({
      schema: "openab.gateway.event.v1",
      event_id: expect.stringMatching(/^evt-/),
      platform: "telegram",
      channel: { id: "dev-chat", type: "dm" },
      sender: { id: "dev-user", is_bot: false },
      content: { type: "text", text: "hello" },
      message_id: expect.stringMatching(/^msg-/),
      proactive: false,
    });
    expect(toBroker[1]).toMatchObject({ event_id: "evt_42", content: { text: "retry" }, proactive: true });
    // The page's message learns its id (only when it named itself).
    expect(await until(() => toUi.length >= 1, 5_000)).toBe(true);
    expect(toUi.splice(0)).toEqual([{ kind: "sent", clientId: "c1", messageId: (toBroker[0] as { message_id: string }).message_id }]);

    const reply = (text: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ schema: "openab.gateway.reply.v1", reply_to: "msg-1", platform: "telegram", channel: { id: "dev-chat" }, content: { type: "text", text }, ...extra });
    broker.send(reply("on it"));
    broker.send(reply("line 1\nline 2", { quote_message_id: "msg-1" }));
    broker.send(reply("", { command: "typing" }));
    expect(await until(() => toUi.length >= 3, 5_000)).toBe(true);
    gateway.turnFinished();
    expect(await until(() => toUi.length >= 4, 5_000)).toBe(true);
    expect(toUi).toEqual([
      // Each reply is labelled with the ms since the page's last message reached the gateway.
      { kind: "reply", text: "on it", messageId: expect.stringMatching(/^gw-/), afterMs: expect.any(Number) },
      { kind: "reply", text: "line 1\nline 2", messageId: expect.stringMatching(/^gw-/), quote: "msg-1", afterMs: expect.any(Number) },
      { kind: "reply", text: "", command: "typing", replyTo: "msg-1", afterMs: expect.any(Number) },
      { kind: "idle" },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(toBroker).toHaveLength(2);
  });
});

describe.skipIf(!browserTestsEnabled("chat page browser tests"))("the chat page in headless Chromium", () => {
  let browser: Browser | undefined;
  let stack: Stack | undefined;
  let page: Page | undefined;
  let pageErrors: string[] = [];
  let elsewhere: Server | undefined;

  beforeAll(async () => {
    // rebind.test resolves to loopback, as a DNS-rebinding attacker's name would.
    browser = await launchChromium(["--host-resolver-rules=MAP rebind.test 127.0.0.1"]);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await page?.close();
    page = undefined;
    await stack?.stop();
    stack = undefined;
    await new Promise((resolve) => (elsewhere === undefined ? resolve(undefined) : elsewhere.close(resolve)));
    elsewhere = undefined;
    expect(pageErrors).toEqual([]);
    pageErrors = [];
  });

  async function openPage(s: Stack): Promise<Page> {
    page = await browser!.newPage({ viewport: { width: 640, height: 560 } });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(s.gateway.pageUrl);
    await page.locator("#status", { hasText: /^connected$/ }).waitFor({ timeout: 10_000 });
    return page;
  }

  it("envelope: three bubbles in order, each labelled with its time, about 400 ms apart", async () => {
    stack = await startStack({ config: { delivery: { mode: "structured", bubble_delay_ms: 400 } } });
    const page = await openPage(stack);
    await page.fill("#text", "envelope");
    await page.click("#send");
    await expect.poll(() => page.locator("#typing").isVisible()).toBe(true);
    await expect.poll(() => page.locator(".mine .text").allTextContents()).toEqual(["envelope"]);
    await page.locator(".bubble").nth(2).waitFor({ timeout: 15_000 });

    expect(await page.locator(".bubble .text").allTextContents()).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
    const labels = await page.locator(".bubble .gap").allTextContents();
    for (const label of labels) expect(label).toMatch(/^\+\d+\.\d{2} s$/);
    const seconds = labels.map((label) => Number.parseFloat(label.slice(1)));
    // Bubble N+1 leaves 400 ms after bubble N's ack, and the gateway labels each when it receives it
    // (a busy renderer once read two at once, 130 ms apart). The gateway shares this process's event
    // loop with the broker, so a stall can label one bubble late and the next on time (a loaded suite
    // read 0.38 s): a generous floor here; the exact 400 ms is asserted in virtual time.
    for (let i = 1; i < seconds.length; i++) expect(seconds[i]! - seconds[i - 1]!).toBeGreaterThanOrEqual(0.3);

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}chat-page.png`, fullPage: true });
    // Nothing reports the turn's end here, so the page stops "typing" 3 s after the last bubble.
    await expect.poll(() => page.locator("#typing").isVisible(), { timeout: 6_000 }).toBe(false);
    expect(await page.locator(".bubble").count()).toBe(3);
  });

  it("a file a reply carries shows as its 📎 line above the caption", async () => {
    stack = await startStack();
    const page = await openPage(stack);
    // A second broker on the gateway: the frame a broker sends for a file, whatever makes it.
    const broker = await open(`${stack.gateway.url}?token=${stack.gateway.token}`);
    const png = Buffer.alloc(1_500, 7);
    const attachment = { type: "image", filename: "chart.png", mime_type: "image/png", data: png.toString("base64"), size: png.byteLength };
    broker.send(JSON.stringify({ schema: "openab.gateway.reply.v1", reply_to: "", platform: "telegram", channel: { id: "dev-chat" }, content: { type: "text", text: "the chart", attachments: [attachment] } }));
    await page.locator(".bubble").first().waitFor({ timeout: 10_000 });
    expect(await page.locator(".bubble .file").allTextContents()).toEqual(["📎 chart.png (1.5 KB)"]);
    expect(await page.locator(".bubble .text").allTextContents()).toEqual(["the chart"]);
    broker.terminate();
  });

  it("status reactions show under the user's message as they change, ending in 🆗 and a face", async () => {
    stack = await startStack({ config: { reactions: { timing: { debounce_ms: 100, stall_soft_ms: 60_000, stall_hard_ms: 120_000 } } } });
    const page = await openPage(stack);
    await page.fill("#text", "slowtool 600");
    await page.click("#send");
    const reaction = page.locator(".mine .reactions");
    // While the tool runs, its state (👨‍💻 for a file tool) is what the message shows.
    await expect.poll(() => reaction.textContent(), { timeout: 10_000 }).toBe("👨‍💻");
    await page.locator(".bubble").first().waitFor({ timeout: 15_000 });
    await expect.poll(async () => (await reaction.textContent())?.startsWith("🆗 "), { timeout: 10_000 }).toBe(true);
    // Two reactions at the end, as upstream leaves them: 🆗 and a face. No command notes.
    expect((await reaction.textContent())?.split(" ")).toHaveLength(2);
    expect(await page.locator(".note").count()).toBe(0);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}chat-page-reactions.png`, fullPage: true });
  });

  it("streaming: one bubble grows in place as the reply is written, marked edited, and ends with the whole reply", async () => {
    stack = await startStack({ config: { gateway: { streaming: true }, reactions: { enabled: false } } });
    const page = await openPage(stack);
    await page.fill("#text", "drip 8 400");
    await page.click("#send");
    const bubbles = page.locator(".bubble");
    // Mid-stream: one bubble, part of the reply.
    await expect.poll(async () => (await bubbles.allTextContents()).join("|"), { timeout: 10_000 }).toMatch(/word2/);
    expect(await bubbles.count()).toBe(1);
    expect(await page.locator(".bubble .text").first().textContent()).not.toContain("word8");
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}streaming-mid.png`, fullPage: true });
    await expect.poll(() => page.locator(".bubble .text").first().textContent(), { timeout: 15_000 }).toBe("word1 word2 word3 word4 word5 word6 word7 word8");
    expect(await bubbles.count()).toBe(1);
    expect(await page.locator(".bubble .edited").count()).toBe(1);
    await page.screenshot({ path: `${artifacts}streaming.png`, fullPage: true });
  });

  it("activity: the tool list shows while tools run and is gone once the answer is there", async () => {
    stack = await startStack({ config: { activity: { enabled: true }, reactions: { enabled: false } } });
    const page = await openPage(stack);
    await page.fill("#text", "tools3 text 1200");
    await page.click("#send");
    await expect.poll(() => page.locator(".bubble .text").first().textContent(), { timeout: 10_000 }).toMatch(/^🖥️ Running curl -u \[redacted\]/);
    await expect.poll(async () => (await page.locator(".bubble .text").first().textContent())?.split("\n").length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}activity.png`, fullPage: true });
    await expect.poll(() => page.locator(".bubble .text").allTextContents(), { timeout: 15_000 }).toEqual(["✅ `Bash`\n✅ `Read`\n✅ `mcp__web__lookup`\n\nall three checks passed"]);
    await page.screenshot({ path: `${artifacts}activity-done.png`, fullPage: true });
  });

  it.each([
    ["text", { mode: "text" }, "tools", 1],
    ["sequential", { mode: "sequential" }, "sequential", 3],
  ])("%s mode as a user sees it (screenshot)", async (mode, delivery, prompt, count) => {
    stack = await startStack({ config: { delivery, reactions: { enabled: false } } });
    const page = await openPage(stack);
    await page.fill("#text", prompt);
    await page.click("#send");
    await page.locator(".bubble").nth(count - 1).waitFor({ timeout: 15_000 });
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: `${artifacts}delivery-${mode}.png`, fullPage: true });
    expect(await page.locator(".bubble").count()).toBe(count);
  });

  it("a proactive message in quiet hours shows no bubble, and the typing indicator goes on idle", async () => {
    const clock = (offsetMinutes: number) => new Date(Date.now() + offsetMinutes * 60_000).toISOString().slice(11, 16);
    stack = await startStack({
      config: {
        delivery: { mode: "structured", bubble_delay_ms: 200 },
        triage: { enabled: true, quiet_hours: `${clock(-60)}-${clock(60)}`, timezone: "UTC", cooldown_secs: 60, daily_cap: 3, dedupe_window_secs: 3600 },
      },
    });
    const page = await openPage(stack);
    await page.check("#proactive");
    await page.fill("#text", "envelope");
    await page.click("#send");
    await expect.poll(() => page.locator("#typing").isVisible()).toBe(true);
    const suppressed = () => stack!.records.find((r) => r.msg === "proactive event suppressed by triage");
    expect(await until(() => suppressed() !== undefined, 10_000)).toBe(true);
    expect(suppressed()).toMatchObject({ reason: "quiet_hours", channel: "dev-chat" });
    stack.gateway.turnFinished();
    await expect.poll(() => page.locator("#typing").isVisible(), { timeout: 2_000 }).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await page.locator(".bubble").count()).toBe(0);
    expect(stack.replies).toHaveLength(0);
  });

  /** Another site on this machine, loaded in the same browser: a page that does not belong to the gateway. */
  async function otherSite(): Promise<string> {
    const server = createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>elsewhere</title><p>another site"));
    elsewhere = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  }

  it("a page from another origin cannot open /ui or /ws, even knowing the token, and nothing reaches the agent", async () => {
    stack = await startStack();
    const refusals: Refusal[] = [];
    stack.gateway.refused.subscribe((refusal) => refusals.push(refusal));
    page = await browser!.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(await otherSite());
    // A string, so the page's own WebSocket runs (vitest would rewrite the name to the ws import).
    const target = JSON.stringify(`ws://127.0.0.1:${stack.gateway.port}`);
    const token = JSON.stringify(stack.gateway.token);
    const attempts = await page.evaluate(`(async () => {
      const attempt = (path) => new Promise((resolve) => {
        const ws = new WebSocket(${target} + path + "?token=" + ${token});
        ws.onopen = () => { ws.send(JSON.stringify({ text: "envelope" })); resolve("open"); };
        ws.onerror = () => resolve("error");
      });
      return { ui: await attempt("/ui"), ws: await attempt("/ws") };
    })()`);
    expect(attempts).toEqual({ ui: "error", ws: "error" });
    expect(refusals).toEqual([
      { reason: "origin_not_allowed", status: 403, path: "/ui", upgrade: true },
      { reason: "origin_not_allowed", status: 403, path: "/ws", upgrade: true },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stack.gateway.brokerCount).toBe(1);
    expect(stack.agentEvents()).toEqual([]);
    expect(stack.replies).toEqual([]);
  });

  it("without the token the page gets 401, and under a rebinding name 403 even with it", async () => {
    stack = await startStack();
    const refusals: Refusal[] = [];
    stack.gateway.refused.subscribe((refusal) => refusals.push(refusal));
    page = await browser!.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const bare = await page.goto(`http://127.0.0.1:${stack.gateway.port}/`);
    expect(bare?.status()).toBe(401);
    expect(await page.textContent("body")).toContain("unauthorized (token_missing)");
    const rebound = await page.goto(`http://rebind.test:${stack.gateway.port}/?token=${stack.gateway.token}`);
    expect(rebound?.status()).toBe(403);
    const onPage = refusals.filter((refusal) => refusal.path === "/"); // not the browser's /favicon.ico
    expect(onPage.map((refusal) => `${refusal.status} ${refusal.reason}`)).toEqual(["401 token_missing", "403 host_not_allowed"]);
  });
});
