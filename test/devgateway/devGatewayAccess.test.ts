import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { DevGateway, type Refusal } from "../../src/devgateway/devGateway.js";
import { until } from "../helpers/stack.js";

// The dev gateway's door over a real HTTP/WebSocket server: the token, the page's own origin and
// loopback Host names (DNS-rebinding defence). The decisions themselves: admission.test.ts.

let gateway: DevGateway | undefined;
let refusals: Refusal[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await gateway?.close();
  gateway = undefined;
  refusals = [];
});

async function start(options: Parameters<typeof DevGateway.start>[0] = {}): Promise<DevGateway> {
  gateway = await DevGateway.start(options);
  gateway.refused.subscribe((refusal) => refusals.push(refusal));
  return gateway;
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A plain HTTP GET with any Host header (fetch may not set one). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, headers }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

/** Opens a WebSocket: "open", or the HTTP status its upgrade was refused with. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<number | "open"> {
  const ws = new WebSocket(url, { headers });
  sockets.push(ws);
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    ws.once("open", () => resolve("open"));
    ws.once("error", reject);
  });
}

describe("the dev gateway's token", () => {
  it("is generated, strong and different per gateway when none is given, and printed only in the page URL", async () => {
    const first = await start();
    const second = await DevGateway.start();
    try {
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(second.token).not.toBe(first.token);
      expect(first.url).toBe(`ws://127.0.0.1:${first.port}/ws`);
      expect(first.pageUrl).toBe(`http://127.0.0.1:${first.port}/?token=${first.token}`);
    } finally {
      await second.close();
    }
  });

  it("is required on every path: 401 without it or with a wrong one", async () => {
    const gw = await start({ token: "s3cret-token" });
    const origin = `http://127.0.0.1:${gw.port}`;
    for (const path of ["/", "/ui", "/ws", "/health", "/nope"]) {
      for (const query of ["", "?token=wrong", "?token=", "?token=s3cret-toke"]) {
        expect((await get(gw.port, `${path}${query}`)).status, `GET ${path}${query}`).toBe(401);
        expect(await upgrade(`ws://127.0.0.1:${gw.port}${path}${query}`, { origin }), `WebSocket ${path}${query}`).toBe(401);
      }
    }
    expect(await get(gw.port, "/health?token=s3cret-token")).toEqual({ status: 200, body: "ok" });
    expect((await get(gw.port, "/?token=s3cret-token")).status).toBe(200);
    expect((await get(gw.port, "/nope?token=s3cret-token")).status).toBe(404);
    const reasons = new Set(refusals.map((refusal) => `${refusal.status} ${refusal.reason}`));
    expect(reasons).toEqual(new Set(["401 token_missing", "401 token_wrong"]));
    expect(new Set(refusals.map((refusal) => refusal.path))).toEqual(new Set(["/", "/ui", "/ws", "/health", "other"]));
  });

  it("tells a developer without it where to find it, and never echoes a token", async () => {
    const gw = await start({ token: "s3cret-token" });
    const answer = await fetch(`http://127.0.0.1:${gw.port}/?token=s3cret-tokeX`);
    expect(answer.status).toBe(401);
    expect(await answer.text()).toBe("unauthorized (token_wrong): open the page URL the dev gateway printed; it carries ?token=\n");
    const page = await get(gw.port, "/?token=s3cret-token");
    expect(page.body).toContain("<!doctype html>");
    expect(page.body).not.toContain("s3cret");
    expect(JSON.stringify(refusals)).not.toMatch(/s3cret/);
  });
});

describe("the dev gateway's origin check", () => {
  it("refuses a cross-origin WebSocket on /ui and /ws with 403, and admits the page's own origin", async () => {
    const gw = await start({ token: "t" });
    const base = `ws://127.0.0.1:${gw.port}`;
    for (const origin of ["http://evil.example", `http://127.0.0.1:${gw.port + 1}`, `http://localhost:${gw.port}`, "null"]) {
      expect(await upgrade(`${base}/ui?token=t`, { origin }), `/ui from ${origin}`).toBe(403);
      expect(await upgrade(`${base}/ws?token=t`, { origin }), `/ws from ${origin}`).toBe(403);
    }
    expect(await upgrade(`${base}/ui?token=t`), "/ui without an Origin").toBe(403);
    expect(new Set(refusals.map((refusal) => refusal.reason))).toEqual(new Set(["origin_not_allowed"]));

    expect(await upgrade(`${base}/ui?token=t`, { origin: `http://127.0.0.1:${gw.port}` })).toBe("open");
    expect(await upgrade(`ws://localhost:${gw.port}/ui?token=t`, { origin: `http://localhost:${gw.port}` })).toBe("open");
    expect(await upgrade(`${base}/ws?token=t`)).toBe("open"); // a broker sends no Origin
    expect(await upgrade(`${base}/ws?token=t`, { origin: `http://127.0.0.1:${gw.port}` })).toBe("open");
    expect(await until(() => gw.brokerCount === 2, 5_000)).toBe(true);
  });

  it("lets nothing a refused page sends reach a broker", async () => {
    const gw = await start({ token: "t" });
    const broker = new WebSocket(`${gw.url}?token=t`);
    sockets.push(broker);
    const events: string[] = [];
    broker.on("message", (data) => events.push(data.toString()));
    await new Promise((resolve) => broker.once("open", resolve));
    expect(await upgrade(`ws://127.0.0.1:${gw.port}/ui?token=t`, { origin: "http://evil.example" })).toBe(403);
    const page = new WebSocket(`ws://127.0.0.1:${gw.port}/ui?token=t`, { origin: `http://127.0.0.1:${gw.port}` });
    sockets.push(page);
    await new Promise((resolve) => page.once("open", resolve));
    page.send(JSON.stringify({ text: "from the page" }));
    expect(await until(() => events.length === 1, 5_000)).toBe(true);
    expect(JSON.parse(events[0]!)).toMatchObject({ content: { text: "from the page" } });
  });
});

describe("the dev gateway's Host check (DNS rebinding)", () => {
  it("answers only loopback names and the listen host, with any port (a tunnel changes it)", async () => {
    const gw = await start({ token: "t" });
    for (const host of [`127.0.0.1:${gw.port}`, `localhost:${gw.port}`, `[::1]:${gw.port}`, "localhost:9000"]) {
      expect((await get(gw.port, "/?token=t", { host })).status, host).toBe(200);
    }
    for (const host of [`evil.example:${gw.port}`, `127.0.0.1.nip.io:${gw.port}`, `devbox.local:${gw.port}`]) {
      expect((await get(gw.port, "/?token=t", { host })).status, host).toBe(403);
      expect((await get(gw.port, "/health?token=t", { host })).status, `${host} /health`).toBe(403);
      expect(await upgrade(`ws://127.0.0.1:${gw.port}/ws?token=t`, { host }), `${host} /ws`).toBe(403);
      expect(await upgrade(`ws://127.0.0.1:${gw.port}/ui?token=t`, { host, origin: `http://${host}` }), `${host} /ui`).toBe(403);
    }
    expect(new Set(refusals.map((refusal) => `${refusal.status} ${refusal.reason}`))).toEqual(new Set(["403 host_not_allowed"]));
  });

  it("answers the names in allowedHosts too", async () => {
    const gw = await start({ token: "t", allowedHosts: ["DevBox.local"] });
    expect((await get(gw.port, "/?token=t", { host: `devbox.local:${gw.port}` })).status).toBe(200);
    expect(await upgrade(`ws://127.0.0.1:${gw.port}/ui?token=t`, { host: `devbox.local:${gw.port}`, origin: `http://devbox.local:${gw.port}` })).toBe("open");
    expect((await get(gw.port, "/?token=t", { host: `evil.example:${gw.port}` })).status).toBe(403);
  });
});
