import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { DevGateway } from "../../src/devgateway/devGateway.js";
import { scriptedAgentPath } from "../helpers/agents.js";
import { finished, runTurnstream, spawnTurnstream, waitForLine } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "turnstream-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function configFile(name: string, toml: string): string {
  const path = join(dir, name);
  writeFileSync(path, toml);
  return path;
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");
const version = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

describe("turnstream CLI (spawned process)", () => {
  it("--version prints the package version", async () => {
    const result = await runTurnstream(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it("--help prints usage and exits 0", async () => {
    const result = await runTurnstream(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("turnstream run [--config FILE] [--role all|edge|worker]");
    expect(result.stdout).toContain("turnstream check-config");
  });

  it("no command prints usage to stderr and exits 2", async () => {
    const result = await runTurnstream([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Usage:");
  });

  it("an unknown command is one line, exit 2", async () => {
    const result = await runTurnstream(["serve"]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual(['turnstream: unknown command "serve"; run "turnstream --help"']);
  });

  it("an unknown flag is one line, exit 2", async () => {
    const result = await runTurnstream(["run", "--colour"]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain("--colour");
  });
});

describe("turnstream check-config", () => {
  it("prints the resolved config with the gateway token masked", async () => {
    const file = configFile(
      "good.toml",
      `[gateway]\nurl = "ws://127.0.0.1:8080/ws"\ntoken = "s3cret-token"\n\n[delivery]\nmode = "Bubbles"\n`,
    );
    const result = await runTurnstream(["check-config", file]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("s3cret-token");
    expect(result.stdout).toContain('token = "***"');
    expect(result.stdout).toContain('mode = "structured"');
    expect(result.stdout).toContain("max_sessions = 10");
  });

  it("masks credentials in bus.url and gateway.url as well as the secret keys", async () => {
    const file = configFile(
      "urls.toml",
      `[gateway]\nurl = "ws://127.0.0.1:8080/ws?token=gw-s3cret"\n\n[bus]\nurl = "nats://edge:nats-s3cret@127.0.0.1:4222"\n`,
    );
    for (const args of [["check-config", file], ["check-config", "--json", file]]) {
      const result = await runTurnstream(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("ws://127.0.0.1:8080/ws?token=***");
      expect(result.stdout).toContain("nats://***@127.0.0.1:4222");
      expect(result.stdout).not.toMatch(/gw-s3cret|nats-s3cret/);
    }
  });

  it("expands OpenAB's Helm-style token = \"${GATEWAY_WS_TOKEN}\" from the environment and masks it", async () => {
    const file = configFile("helm.toml", `[gateway]\nurl = "ws://127.0.0.1:8080/ws"\ntoken = "\${GATEWAY_WS_TOKEN}"\n`);
    const set = await runTurnstream(["check-config", file], { env: { GATEWAY_WS_TOKEN: "helm-s3cret" } });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('token = "***"');
    expect(set.stdout).not.toContain("helm-s3cret");
    const unset = await runTurnstream(["check-config", file], { env: { GATEWAY_WS_TOKEN: undefined } });
    expect(unset.code).toBe(2);
    expect(lines(unset.stderr)).toEqual([`turnstream: ${file}: gateway.token: \${GATEWAY_WS_TOKEN} is not set in the environment`]);
    expect(unset.stdout).toBe("");
  });

  it("run connects to a gateway whose token comes from ${GATEWAY_WS_TOKEN}", async () => {
    const gateway = await DevGateway.start({ token: "helm-s3cret-2" });
    try {
      const file = configFile(
        "helm-run.toml",
        `[gateway]\nurl = "${gateway.url}"\ntoken = "\${GATEWAY_WS_TOKEN}"\n\n[agent]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([scriptedAgentPath])}\n\n[pool]\nstate_dir = ${JSON.stringify(join(dir, "helm-state"))}\n`,
      );
      const child = spawnTurnstream(["run", "--config", file], { env: { GATEWAY_WS_TOKEN: "helm-s3cret-2" } });
      const done = finished(child);
      await waitForLine(child, (line) => line.includes('"connected to gateway"'));
      child.kill("SIGTERM");
      const result = await done;
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain("helm-s3cret-2");
    } finally {
      await gateway.close();
    }
  });

  it("--json prints the same as JSON", async () => {
    const file = configFile("json.toml", `[pool]\nmax_sessions = 3\n`);
    const result = await runTurnstream(["check-config", "--json", file]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ pool: { max_sessions: 3 }, delivery: { mode: "text" } });
  });

  it("names delivery.mode, the value and the allowed values for mode = \"bubblez\", exit 2", async () => {
    const file = configFile("bubblez.toml", `[delivery]\nmode = "bubblez"\n`);
    const result = await runTurnstream(["check-config", file]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain("delivery.mode");
    expect(result.stderr).toContain('"bubblez"');
    expect(result.stderr).toContain("text, structured, sequential");
    expect(result.stdout).toBe("");
  });

  it("names a misspelled section [gatway] as an unknown key", async () => {
    const file = configFile("gatway.toml", `[gatway]\nurl = "ws://127.0.0.1:8080/ws"\n`);
    const result = await runTurnstream(["check-config", file]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/gatway: unknown key/);
    expect(result.stderr).toContain('"gateway"');
  });

  it("reports every problem, one line each, and no stack trace", async () => {
    const file = configFile(
      "many.toml",
      `[pool]\nmax_sessions = 0\n[gateway]\nstreaming = "yes"\n[delivery]\nmode = "bubblez"\n`,
    );
    const result = await runTurnstream(["check-config", file]);
    expect(result.code).toBe(2);
    const problems = lines(result.stderr);
    expect(problems.length).toBeGreaterThanOrEqual(4); // gateway.url missing, gateway.streaming, pool.max_sessions, delivery.mode
    for (const key of ["gateway.url", "gateway.streaming", "pool.max_sessions", "delivery.mode"]) {
      expect(problems.some((line) => line.includes(key))).toBe(true);
    }
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("a missing file is one line, exit 2", async () => {
    const result = await runTurnstream(["check-config", join(dir, "nope.toml")]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain("nope.toml");
    expect(result.stderr).toContain("no such file");
  });

  it("bad TOML is one line naming where, exit 2", async () => {
    const file = configFile("broken.toml", `[delivery\nmode = "text"\n`);
    const result = await runTurnstream(["check-config", file]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/line 1/);
  });

  it("without FILE is a usage error", async () => {
    const result = await runTurnstream(["check-config"]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
  });
});

describe("turnstream run", () => {
  it("starts on the embedded default, logs ready, and exits 0 within 1 s of SIGTERM", async () => {
    const child = spawnTurnstream(["run"]);
    const done = finished(child);
    const ready = JSON.parse(await waitForLine(child, (line) => line.includes('"broker ready"'))) as Record<string, unknown>;
    expect(ready).toMatchObject({ level: 30, msg: "broker ready", role: "all", bus: "memory" });
    const signalled = performance.now();
    child.kill("SIGTERM");
    const result = await done;
    const exitMs = performance.now() - signalled;
    expect(result.code).toBe(0);
    expect(exitMs).toBeLessThan(1_000);
    const messages = lines(result.stdout).map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(["shutdown requested", "broker stopping", "broker stopped"]));
  });

  it("stops the same way on SIGINT", async () => {
    const child = spawnTurnstream(["run"]);
    const done = finished(child);
    await waitForLine(child, (line) => line.includes('"broker ready"'));
    child.kill("SIGINT");
    expect((await done).code).toBe(0);
  });

  it("runs from a config file, with pretty logs when [log] pretty = true", async () => {
    const file = configFile("pretty.toml", `[log]\npretty = true\nlevel = "debug"\n`);
    const child = spawnTurnstream(["run", "--config", file]);
    const done = finished(child);
    const ready = await waitForLine(child, (line) => line.includes("broker ready"));
    expect(() => JSON.parse(ready)).toThrow();
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });

  it("a bad config stops start-up with exit 2 and one line per problem", async () => {
    const file = configFile("bad-run.toml", `[delivery]\nmode = "bubblez"\n`);
    const result = await runTurnstream(["run", "--config", file]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain("delivery.mode");
  });

  it("a missing config file is one line, exit 2", async () => {
    const result = await runTurnstream(["run", "--config", join(dir, "absent.toml")]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
  });

  it("--role edge on the embedded bus is refused with exit 2", async () => {
    const result = await runTurnstream(["run", "--role", "edge"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--role all");
  });

  it("--role worker with a NATS server it cannot reach exits 1, naming the URL without its credentials", async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const file = configFile("unreachable-nats.toml", '[bus]\nurl = "nats://127.0.0.1:1"\ntoken = "s3cret-token"\n');
    const result = await runTurnstream(["run", "--role", "worker", "--config", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^turnstream: cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/m);
    expect(result.stderr + result.stdout).not.toContain("s3cret-token");
  });

  it("an unknown --role is refused with exit 2", async () => {
    const result = await runTurnstream(["run", "--role", "boss"]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual(['turnstream: --role "boss" is not allowed; expected one of all, edge, worker']);
  });

  it("an invalid LOG_LEVEL is refused with exit 2", async () => {
    const result = await runTurnstream(["run"], { env: { LOG_LEVEL: "loud" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("LOG_LEVEL");
  });

  it("LOG_LEVEL overrides [log] level", async () => {
    const file = configFile("quiet.toml", `[log]\nlevel = "warn"\n`);
    const child = spawnTurnstream(["run", "--config", file], { env: { LOG_LEVEL: "info" } });
    const done = finished(child);
    await waitForLine(child, (line) => line.includes('"broker ready"'));
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });
});
