import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scratch } from "../helpers/agents.js";
import { runTurnstream } from "../helpers/cli.js";
import { Cluster } from "../helpers/cluster.js";
import { floodAndChat, mcpAgentPath, startFloodedBroker, type FloodedBroker } from "../helpers/replyToolFlood.js";
import { until, userEvent } from "../helpers/stack.js";

// Issue 36 against real processes: a `turnstream run` broker with a lowered descriptor limit, the
// mcp-agent (a real MCP SDK client) as its agent, and clients of the reply tool's endpoints that
// are not ours. The 1,000-connection version is replyToolEndpoints.load.test.ts.

let broker: FloodedBroker | undefined;
let cluster: Cluster | undefined;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await broker?.cluster.stop();
  broker = undefined;
  await cluster?.stop();
  cluster = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("the reply tool's HTTP endpoint under unauthenticated clients (spawned broker, ulimit -n 256)", () => {
  it("300 unauthenticated GET /mcp streams and 300 silent connections: descriptors stay bounded, new chats and reply tool calls work", async () => {
    broker = await startFloodedBroker(256);
    const figures = await floodAndChat(broker, 300);
    // Without the fix the 300 streams stay open: 300 descriptors and more, past the limit (EMFILE).
    expect(figures.peak).toBeLessThan(256 - 40);
    expect(figures.peak).toBeLessThanOrEqual(figures.baseline + broker.connectionLimit + 40);
    expect(figures.after).toBeLessThanOrEqual(figures.baseline + 10);
  }, 90_000);
});

describe("the reply tool's socket with a long TMPDIR (spawned broker)", () => {
  it("a 137-character TMPDIR: starts, the socket in a 0700 folder under /tmp, the relay's calls work, and stopping leaves nothing behind", async () => {
    const base = join(tmpdir(), `ts-e2e-long-${process.pid}-`);
    const long = base + "d".repeat(137 - base.length);
    expect(long).toHaveLength(137);
    mkdirSync(long, { recursive: true });
    cleanups.push(() => rmSync(long, { recursive: true, force: true }));
    const dir = scratch();
    cleanups.push(dir.cleanup);
    const secrets = join(dir.dir, "secrets");
    mkdirSync(secrets);
    cluster = await Cluster.start({
      config: { delivery: { mode: "structured", bubble_delay_ms: 0 }, reactions: { enabled: false } },
      agentScript: mcpAgentPath,
      agentEnv: { MCP_AGENT_SECRETS_DIR: secrets },
      env: { TMPDIR: long },
    });
    const member = await cluster.add("all");
    expect(await until(() => cluster?.gateway.brokerCount === 1, 10_000)).toBe(true);
    cluster.gateway.broadcast(userEvent("reply3", { channel: { id: "long-tmp", type: "dm" } }));
    await cluster.replyCount(3, 30_000);
    expect(cluster.replies.map((reply) => reply.content.text)).toEqual(["one", "two", "three"]);
    // The stdio relay reached the socket the session was offered.
    expect(cluster.agentEvents().filter((line) => /^mcp-connected \S+ stdio$/.test(line))).toHaveLength(1);
    const [file] = readdirSync(secrets);
    const env = JSON.parse(readFileSync(join(secrets, file ?? ""), "utf8")) as { name: string; value: string }[];
    const socket = env.find((pair) => pair.name === "TURNSTREAM_MCP_ENDPOINT")?.value ?? "";
    expect(dirname(dirname(socket))).toBe("/tmp");
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    expect(lstatSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(member.logs.find((line) => line.reason === "mcp_socket_dir_fallback")).toMatchObject({ path: socket });
    expect(readdirSync(long)).toEqual([]);
    expect(await member.stop()).toBe(0);
    expect(existsSync(dirname(socket))).toBe(false);
    expect(readdirSync(long)).toEqual([]);
  }, 60_000);
});

describe("the reply tool's socket when TMPDIR cannot hold it (spawned broker)", () => {
  it("refuses to start with one stderr line naming TMPDIR, exit 1", async () => {
    const dir = scratch();
    cleanups.push(dir.cleanup);
    const config = join(dir.dir, "broker.toml");
    writeFileSync(config, `[gateway]\nurl = "ws://127.0.0.1:1/ws"\ntoken = "t"\nallow_all_users = true\nallow_all_channels = true\n[delivery]\nmode = "structured"\n[agent]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(mcpAgentPath)}]\n`);
    const missing = join(tmpdir(), `ts-no-such-tmpdir-${process.pid}`);
    const result = await runTurnstream(["run", "--config", config], { env: { TMPDIR: missing } });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split("\n")).toEqual(["turnstream: cannot create the reply tool's socket directory in TMPDIR (ENOENT); set TMPDIR to a writable directory"]);
    expect(existsSync(missing)).toBe(false);
  });
});
