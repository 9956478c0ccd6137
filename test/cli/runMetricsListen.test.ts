import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedAgentPath } from "../helpers/agents.js";
import { runTurnstream } from "../helpers/cli.js";

// `[metrics] listen` on a port that is taken: start-up stops with one line naming the key, before
// the broker says it is ready, and nothing is left running.
const dir = mkdtempSync(join(tmpdir(), "turnstream-metrics-listen-"));
let blocker: Server;
let port: number;

beforeAll(async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  port = (blocker.address() as AddressInfo).port;
});
afterAll(() => {
  blocker.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("turnstream run with [metrics] on a port in use (built CLI)", () => {
  it("exits 1 with one line naming metrics.listen, and never says it is ready", async () => {
    const config = join(dir, "config.toml");
    writeFileSync(
      config,
      [
        "[agent]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify([scriptedAgentPath])}`,
        "[pool]",
        `state_dir = ${JSON.stringify(join(dir, "state"))}`,
        "[metrics]",
        "enabled = true",
        `listen = "127.0.0.1:${port}"`,
        "",
      ].join("\n"),
    );
    const result = await runTurnstream(["run", "--config", config]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`turnstream: metrics.listen: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n`);
    expect(result.stdout).not.toContain('"broker ready"');
    expect(result.stdout).not.toContain('"metrics endpoint listening"');
  });
});
