import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EventLoopHealth } from "../../src/metrics/eventLoopHealth.js";
import { MetricsListenError } from "../../src/metrics/errors.js";
import { MetricsServer, type MetricsServerOptions } from "../../src/metrics/metricsServer.js";
import type { Readiness } from "../../src/metrics/readiness.js";
import { captureLogs } from "../helpers/logCapture.js";

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ready: Readiness = { ready: true, phase: "running", missing: [] };

async function start(overrides: Partial<MetricsServerOptions> = {}) {
  const { logger, records } = captureLogs();
  server = new MetricsServer({
    listen: "127.0.0.1:0",
    metrics: () => Promise.resolve("# HELP x_total X.\n# TYPE x_total counter\nx_total 1\n"),
    contentType: "text/plain; version=0.0.4; charset=utf-8",
    readiness: () => ready,
    health: new EventLoopHealth(),
    logger,
    ...overrides,
  });
  await server.start();
  return { url: server.url as string, records };
}

describe("MetricsServer", () => {
  it("serves /metrics in Prometheus text format and logs where it listens", async () => {
    const { url, records } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await response.text()).toContain("x_total 1");
    expect(records.find((r) => r.msg === "metrics endpoint listening")).toMatchObject({ url });
  });

  it("/readyz: 200 when ready, 503 naming what is missing", async () => {
    let current: Readiness = ready;
    const { url } = await start({ readiness: () => current });
    const ok = await fetch(`${url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: "ready", phase: "running", missing: [] });
    current = { ready: false, phase: "draining", missing: ["broker", "gateway"] };
    const not = await fetch(`${url}/readyz?verbose=1`);
    expect(not.status).toBe(503);
    expect(not.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await not.json()).toEqual({ status: "not_ready", phase: "draining", missing: ["broker", "gateway"] });
  });

  it("/healthz: 200 with a responsive loop, 503 after a stall beyond the limit, with the loop's lag", async () => {
    let now = 1_000;
    // perf_hooks' delay histogram stood in for: the longest delay it saw, in ns.
    const delay = { max: 0, reset: () => undefined, enable: () => true, disable: () => true };
    const health = new EventLoopHealth({ now: () => now, stallLimitMs: 100, heartbeatMs: 10, delayMonitor: () => delay });
    const { url } = await start({ health });
    const ok = await fetch(`${url}/healthz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: "ok", event_loop_stall_ms: 0, event_loop_lag_ms: 0 });
    delay.max = 47e6; // a 10 ms timer 37 ms late
    now += 500;
    health.beat();
    const stalled = await fetch(`${url}/healthz`);
    expect(stalled.status).toBe(503);
    expect(await stalled.json()).toEqual({ status: "stalled", event_loop_stall_ms: 490, event_loop_lag_ms: 37 });
  });

  it("answers HEAD without a body, 405 for other methods, 404 for other paths", async () => {
    const { url } = await start();
    const head = await fetch(`${url}/metrics`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(`${url}/metrics`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const missing = await fetch(`${url}/../../etc/passwd`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("not found: try /metrics, /healthz or /readyz\n");
  });

  it("a collection that throws is a 500 with a fixed body (no message, no stack) and one error line", async () => {
    const { url, records } = await start({ metrics: () => Promise.reject(new Error("secret path /home/x/.creds at frame 3")) });
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("metrics collection failed\n");
    expect(records.find((r) => r.msg === "metrics collection failed")).toMatchObject({ reason: "collect_failed" });
    // Still serving.
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });

  it("a port in use is a MetricsListenError naming metrics.listen and the code", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { logger } = captureLogs();
      const taken = new MetricsServer({ listen: `127.0.0.1:${port}`, metrics: () => Promise.resolve(""), contentType: "text/plain", readiness: () => ready, health: new EventLoopHealth(), logger });
      const err = await taken.start().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MetricsListenError);
      expect((err as MetricsListenError).message).toBe(`metrics.listen: cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
      expect((err as MetricsListenError).code).toBe("EADDRINUSE");
      await taken.close();
    } finally {
      blocker.close();
    }
  });

  it("close() ends keep-alive connections instead of waiting for them", async () => {
    const { url } = await start();
    await fetch(`${url}/metrics`, { headers: { connection: "keep-alive" } });
    const closing = server?.close();
    await expect(closing).resolves.toBeUndefined();
    server = undefined;
  });
});
