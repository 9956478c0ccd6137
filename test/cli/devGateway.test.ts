import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scriptedAgentPath } from "../helpers/agents.js";
import { finished, runTurnstream, spawnTurnstream, waitForLine } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "turnstream-devgw-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("turnstream dev-gateway with a separate turnstream run (two real processes)", () => {
  it("relays a typed message to the broker and prints the agent's reply as a bubble", async () => {
    const gateway = spawnTurnstream(["dev-gateway", "--listen", "127.0.0.1:0", "--token", "s3cret"]);
    const gatewayDone = finished(gateway);
    const banner = await waitForLine(gateway, (line) => line.startsWith("dev gateway: brokers connect to "));
    const url = /connect to (ws:\/\/\S+?)\?token=s3cret;/.exec(banner)?.[1];
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    const health = await fetch(new URL("/health", url!.replace("ws://", "http://")));
    expect(await health.text()).toBe("ok");

    const config = join(dir, "broker.toml");
    writeFileSync(
      config,
      [
        "[gateway]",
        `url = "${url}"`,
        `token = "s3cret"`,
        "allow_all_users = true",
        "allow_all_channels = true",
        "[agent]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(scriptedAgentPath)}]`,
        "[pool]",
        `state_dir = ${JSON.stringify(join(dir, "state"))}`,
      ].join("\n"),
    );
    const broker = spawnTurnstream(["run", "--config", config]);
    const brokerDone = finished(broker);
    await waitForLine(broker, (line) => line.includes('"connected to gateway"'));
    gateway.stdin.write("prose\n");
    await waitForLine(gateway, (line) => line === "│ hey what's up");

    broker.kill("SIGTERM");
    gateway.stdin.end();
    expect((await brokerDone).code).toBe(0);
    expect((await gatewayDone).code).toBe(0);
  });

  it("refuses a malformed --listen with exit 2", async () => {
    const result = await runTurnstream(["dev-gateway", "--listen", "nowhere"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("expected HOST:PORT");
  });
});
