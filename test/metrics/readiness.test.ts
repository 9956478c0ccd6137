import { describe, expect, it } from "vitest";
import { readiness, type ReadinessView } from "../../src/metrics/readiness.js";

const running = { phase: "running", bus: true } as const;
const gateway = (connected: boolean) => [{ name: "gateway", connected }];

describe("readiness", () => {
  it.each<[string, ReadinessView, readonly string[]]>([
    ["an embedded broker holding every partition, gateway connected", { ...running, ports: gateway(true), partitions: { owned: 16, share: 16 } }, []],
    ["an edge with its gateway and bus", { ...running, ports: gateway(true) }, []],
    ["an edge whose gateway is down", { ...running, ports: gateway(false) }, ["gateway"]],
    ["an edge with the gateway up and its Telegram port down", { ...running, ports: [...gateway(true), { name: "telegram", connected: false }] }, ["telegram"]],
    ["a worker holding more than its share (a peer has yet to join)", { ...running, partitions: { owned: 9, share: 8 } }, []],
    ["a worker below its share", { ...running, partitions: { owned: 7, share: 8 } }, ["partitions"]],
    ["a worker that has not read the lease table yet", { ...running, partitions: { owned: 0, share: undefined } }, ["partitions"]],
    ["a worker whose share is nothing (more workers than partitions)", { ...running, partitions: { owned: 0, share: 0 } }, []],
    ["a worker cut off from the bus", { ...running, bus: false, partitions: { owned: 8, share: 8 } }, ["bus"]],
    ["a broker still starting", { phase: "starting", bus: true, ports: gateway(true) }, ["broker"]],
    ["a draining broker, even with everything connected", { phase: "draining", bus: true, ports: gateway(true), partitions: { owned: 16, share: 16 } }, ["broker"]],
    ["a stopped broker with nothing left", { phase: "stopped", bus: false, ports: gateway(false), partitions: { owned: 0, share: 8 } }, ["broker", "bus", "gateway", "partitions"]],
  ])("%s", (_, view, missing) => {
    const result = readiness(view);
    expect(result.missing).toEqual(missing);
    expect(result.ready).toBe(missing.length === 0);
    expect(result.phase).toBe(view.phase);
  });
});
