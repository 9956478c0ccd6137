import { afterEach, describe, expect, it } from "vitest";
import { EventLoopHealth } from "../../src/metrics/eventLoopHealth.js";
import { MetricsServer, type MetricsServerOptions } from "../../src/metrics/metricsServer.js";
import { eventually } from "../helpers/agents.js";
import { captureLogs } from "../helpers/logCapture.js";
import { rawClient, type RawClient } from "../helpers/pipelinedFlood.js";

// The metrics listener against clients that do not behave like Prometheus or a kubelet, over real
// sockets: pipelining, half-closing, dribbling headers, not reading, malformed requests, too many
// connections. Limits are shortened so each case takes well under a second of waiting.

let server: MetricsServer | undefined;
const clients: RawClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await server?.close();
  server = undefined;
});

/** A gate the test opens: collections wait on it. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

async function start(overrides: Partial<MetricsServerOptions> = {}) {
  const { logger, records } = captureLogs();
  let collections = 0;
  server = new MetricsServer({
    listen: "127.0.0.1:0",
    metrics: () => Promise.resolve(`x_total ${++collections}\n`),
    contentType: "text/plain; version=0.0.4; charset=utf-8",
    readiness: () => ({ ready: true, phase: "running", missing: [] }),
    health: new EventLoopHealth(),
    logger,
    ...overrides,
    limits: { headersTimeoutMs: 300, keepAliveTimeoutMs: 300, stalledClientMs: 300, ...overrides.limits },
  });
  await server.start();
  const url = server.url as string;
  return {
    url,
    records,
    collections: () => collections,
    refused: (reason: string) => records.filter((r) => r.msg === "metrics client refused" && r.reason === reason),
    client: async () => {
      const client = await rawClient(url);
      clients.push(client);
      return client;
    },
  };
}

const get = (path: string, extra = "") => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

describe("MetricsServer with hostile clients", () => {
  it("answers pipelined requests in order, and scrapes waiting together share one collection", async () => {
    const { client, collections } = await start();
    const c = await client();
    c.write(get("/healthz") + get("/metrics") + get("/readyz") + get("/nope") + get("/metrics"));
    const answers = await c.answered(5);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 200]);
    expect(JSON.parse(answers[0]?.body ?? "")).toMatchObject({ status: "ok" });
    expect(answers[1]?.body).toMatch(/^x_total \d+\n$/);
    expect(JSON.parse(answers[2]?.body ?? "")).toEqual({ status: "ready", phase: "running", missing: [] });
    expect(answers[1]?.headers).toMatchObject({ "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });

    // 20 connections × 10 pipelined scrapes: each turn of the loop reads one request per connection,
    // and the scrapes read in a turn share a collection. Far fewer collections than scrapes.
    const before = collections();
    const many = await Promise.all(Array.from({ length: 20 }, () => client()));
    for (const m of many) m.write(get("/metrics").repeat(10));
    const all = await Promise.all(many.map((m) => m.answered(10)));
    expect(all.flat().every((a) => a.status === 200)).toBe(true);
    expect(collections() - before).toBeLessThan(200 / 4);
  });

  it("never answers a scrape with a collection that started before the scrape arrived", async () => {
    const hold = gate();
    let collections = 0;
    const { client } = await start({
      metrics: async () => {
        const n = ++collections;
        if (n === 1) await hold.opened;
        return `x_total ${n}\n`;
      },
    });
    const first = await client();
    first.write(get("/metrics"));
    expect(await eventually(() => collections === 1)).toBe(true); // the first collection is running, held
    const second = await client();
    second.write(get("/metrics"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    hold.open();
    expect((await first.answered(1))[0]?.body).toBe("x_total 1\n");
    // It arrived while the first was running: it waited for a collection of its own.
    expect((await second.answered(1))[0]?.body).toBe("x_total 2\n");
  });

  it("/healthz and /readyz answer at once while every scrape waits on a collection that hangs", async () => {
    const hold = gate();
    const { client, url } = await start({ metrics: () => hold.opened.then(() => "x_total 1\n") });
    const scrapers = await Promise.all(Array.from({ length: 10 }, () => client()));
    for (const s of scrapers) s.write(get("/metrics").repeat(5));
    const started = performance.now();
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);
    hold.open();
    await Promise.all(scrapers.map((s) => s.answered(5)));
  });

  it("a collection that fails is one log line however many scrapes waited for it, each answered 500", async () => {
    const hold = gate();
    let collections = 0;
    const { client, records } = await start({
      metrics: async () => {
        collections += 1;
        await hold.opened;
        throw new Error("secret /home/x/.creds");
      },
    });
    const scrapers = await Promise.all(Array.from({ length: 5 }, () => client()));
    for (const s of scrapers) s.write(get("/metrics"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    hold.open();
    const answers = (await Promise.all(scrapers.map((s) => s.answered(1)))).flat();
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array.from({ length: 5 }, () => [500, "metrics collection failed\n"]));
    // The first scrape's collection, and one for every scrape that came while it ran.
    expect(collections).toBeLessThanOrEqual(2);
    expect(records.filter((r) => r.msg === "metrics collection failed")).toHaveLength(collections);
  });

  it("a client that sends its requests and half-closes gets every answer, then the connection closes", async () => {
    const { client } = await start();
    const c = await client();
    c.write(get("/healthz") + get("/metrics") + get("/readyz"));
    c.end();
    await c.closed;
    expect(c.answers.map((a) => a.status)).toEqual([200, 200, 200]);
  });

  it("HTTP/1.0, `connection: close` and a request with a body are answered, then closed", async () => {
    const { client } = await start();
    for (const request of ["GET /healthz HTTP/1.0\r\n\r\n", get("/healthz", "Connection: close\r\n"), "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"]) {
      const c = await client();
      c.write(request + get("/healthz"));
      await c.closed;
      expect(c.answers.length).toBe(1);
      expect(c.answers[0]?.headers.connection).toBe("close");
    }
    const keep = await client();
    keep.write("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + get("/healthz"));
    expect((await keep.answered(2)).map((a) => a.status)).toEqual([200, 200]);
  });

  it("a malformed request is a 400 and closed, logged as bad_request; answers before it were written in full", async () => {
    const { client, refused } = await start();
    const c = await client();
    c.write(get("/healthz") + "GET /healthz\r\n\r\n" + get("/healthz"));
    await c.closed;
    expect(c.answers.map((a) => a.status)).toEqual([200, 400]);
    expect(refused("bad_request")).toEqual([expect.objectContaining({ level: 40, bad: "request_line" })]);
    // A folded header line.
    const folded = await client();
    folded.write("GET /healthz HTTP/1.1\r\nHost: x\r\n continued\r\n\r\n");
    await folded.closed;
    expect(folded.answers.map((a) => a.status)).toEqual([400]);
  });

  it("a request head larger than maxHeadBytes is a 431, whether or not it ever ends", async () => {
    const { client, refused } = await start({ limits: { maxHeadBytes: 1024 } });
    const ended = await client();
    ended.write(get("/healthz", `X-Big: ${"a".repeat(2_000)}\r\n`));
    await ended.closed;
    expect(ended.answers.map((a) => a.status)).toEqual([431]);
    const endless = await client();
    endless.write(`GET /healthz HTTP/1.1\r\nX-Big: ${"a".repeat(2_000)}`);
    await endless.closed;
    expect(endless.answers.map((a) => a.status)).toEqual([431]);
    expect(refused("bad_request").map((r) => r.bad)).toEqual(["head_too_large"]); // the second is counted, not a line
  });

  it("a client dribbling its headers is cut off at headersTimeoutMs from the first byte, with a 408", async () => {
    const { client, refused } = await start();
    const slow = await client();
    slow.write("GET /healthz HTTP/1.1\r\n");
    const started = performance.now();
    const dribble = setInterval(() => slow.write("X: y\r\n"), 50);
    await slow.closed;
    clearInterval(dribble);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(slow.answers.map((a) => a.status)).toEqual([408]);
    expect(refused("headers_timeout")).toHaveLength(1);
  });

  it("part of a head and then silence is a 408 too", async () => {
    const { client, refused } = await start({ limits: { headersTimeoutMs: 10_000 } });
    const silent = await client();
    silent.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    await silent.closed;
    expect(silent.answers.map((a) => a.status)).toEqual([408]);
    expect(refused("headers_timeout")).toHaveLength(1);
  });

  it("an idle keep-alive connection is closed after keepAliveTimeoutMs, without a log line", async () => {
    const { client, records } = await start();
    const idle = await client();
    idle.write(get("/healthz"));
    await idle.answered(1);
    await idle.closed;
    expect(records.filter((r) => r.msg === "metrics client refused")).toEqual([]);
  });

  it("a client that pipelines scrapes and reads none of the answers is cut off as stalled", async () => {
    const big = `x_total 1\n${"# padding\n".repeat(400_000)}`; // 4 MB: more than the socket buffers hold
    const { url, refused } = await start({ metrics: () => Promise.resolve(big) });
    const { connect } = await import("node:net");
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => socket.write(get("/metrics").repeat(10)));
    socket.pause(); // never reads (so it would not see the server close either: the server's line tells)
    socket.on("error", () => undefined);
    try {
      expect(await eventually(() => refused("stalled_client").length === 1, 10_000)).toBe(true);
    } finally {
      socket.destroy();
    }
  });

  it("beyond maxConnections, a pipelining connection makes room first, then the longest idle, else the new one is refused", async () => {
    const hold = gate();
    const { client, refused } = await start({ limits: { maxConnections: 3 }, metrics: () => hold.opened.then(() => "x_total 1\n") });
    const idle = await client();
    const pipelining = await client();
    pipelining.write(get("/metrics").repeat(3));
    const waiting = await client();
    waiting.write(get("/metrics"));
    await new Promise((resolve) => setTimeout(resolve, 50));

    const fourth = await client(); // closes the pipelining one, though the idle one is older
    await pipelining.closed;
    const fifth = await client(); // closes the idle one
    await idle.closed;
    fourth.write(get("/metrics"));
    fifth.write(get("/metrics"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const sixth = await client(); // all three wait on a collection, none pipelines: refused
    await sixth.closed;
    expect(sixth.answers).toEqual([]);

    hold.open();
    await Promise.all([waiting.answered(1), fourth.answered(1), fifth.answered(1)]);
    expect(refused("connection_limit")).toEqual([expect.objectContaining({ level: 40, limit: 3 })]); // one line; the rest are counted
  });

  it("a flood of refusals is one line, and a summary line with the count after the period", async () => {
    const { client, records } = await start({ limits: { maxHeadBytes: 64 } });
    for (let i = 0; i < 20; i++) {
      const c = await client();
      c.write(`GET /${"a".repeat(100)}`);
      await c.closed;
    }
    expect(records.filter((r) => r.msg === "metrics client refused")).toHaveLength(1);
    await server?.close(); // flushes what was counted
    server = undefined;
    expect(records.filter((r) => r.msg === "metrics client refused" && r.count !== 1)).toEqual([expect.objectContaining({ level: 40, reason: "bad_request", count: 19 })]);
  });
});
