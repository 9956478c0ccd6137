import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nkeys } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevGateway, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { scriptedAgentPath } from "../helpers/agents.js";
import { finished, runTurnstream, spawnTurnstream, type CliResult } from "../helpers/cli.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";
import { until, userEvent } from "../helpers/stack.js";

// Issue 17's acceptance: no secret appears in check-config output, logs at any level, error
// messages or the agent's environment beyond its own [agent].env. Every secret is distinctive, so
// a hit anywhere is a leak, however it is spelled.
const user = nkeys.createUser();
const secrets = {
  gatewayToken: "gwTOKEN-7d2e91-leak",
  natsPassword: "natsPASS-4b8c33-leak",
  natsToken: "natsTOKEN-a19f07-leak",
  credsJwt: "credsJWT-5e6f70-leak",
  credsSeed: new TextDecoder().decode(user.getSeed()),
  agentKey: "agentKEY-0c3d55-leak",
  // Characters that JSON, URL encoding and shells spell differently.
  agentOther: 'agent "val&ue=2a" \\ leak',
  brokerEnvSecret: "brokerENV-91ab02-leak",
};
const credsText =
  `-----BEGIN NATS USER JWT-----\n${secrets.credsJwt}\n------END NATS USER JWT------\n\n` +
  `************************* IMPORTANT *************************\nNKEY Seed printed below\n\n` +
  `-----BEGIN USER NKEY SEED-----\n${secrets.credsSeed}\n------END USER NKEY SEED------\n`;

/** Every spelling of a secret that could plausibly show up in output. */
function spellings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), bytes.toString("base64"), bytes.toString("base64url")];
}

const allSecrets = [...Object.values(secrets), credsText];

function expectNoSecret(text: string, what: string, except: readonly string[] = []): void {
  for (const secret of allSecrets.filter((s) => !except.includes(s))) {
    for (const spelling of spellings(secret)) {
      // A secret's middle third is still a leak (a line cut short, a partial mask).
      const middle = spelling.slice(Math.floor(spelling.length / 3), Math.ceil((2 * spelling.length) / 3));
      expect(text.includes(spelling) || (middle.length >= 6 && text.includes(middle)), `${what} shows ${JSON.stringify(secret)}`).toBe(false);
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), "turnstream-nosecret-"));
const credsFile = join(dir, "user.creds");
writeFileSync(credsFile, credsText);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function configFile(toml: string): string {
  const path = join(dir, `config-${++files}.toml`);
  writeFileSync(path, toml);
  return path;
}

const toml = (value: string) => JSON.stringify(value);
const agentSection = `[agent]
command = ${toml(process.execPath)}
args = [${toml(scriptedAgentPath)}]
working_dir = ${toml(dir)}
env = { API_KEY = "\${BROKER_API_KEY}", OTHER = ${toml(secrets.agentOther)} }
`;

describe("check-config never shows a secret", () => {
  const valid = [
    `[gateway]\nurl = "ws://127.0.0.1:1/ws"\ntoken = ${toml(secrets.gatewayToken)}\n[dev_gateway]\ntoken = ${toml(secrets.gatewayToken)}\n` +
      `[bus]\nurl = "nats://127.0.0.1:1"\nuser = "edge"\npassword = ${toml(secrets.natsPassword)}\n${agentSection}`,
    `[gateway]\nurl = ${toml(`ws://127.0.0.1:1/ws?token=${secrets.gatewayToken}`)}\n[bus]\nurl = ${toml(`nats://${secrets.natsToken}@127.0.0.1:1`)}\n`,
    `[bus]\nurl = ${toml(`tls://edge:${encodeURIComponent(secrets.natsPassword)}@127.0.0.1:1`)}\n`,
    `[bus]\nurl = "nats://127.0.0.1:1"\ntoken = ${toml(secrets.natsToken)}\n`,
    `[bus]\nurl = "nats://127.0.0.1:1"\ncreds = ${toml(credsFile)}\n`,
  ];
  it.each(valid.map((text, i) => [i, text] as const))("valid file %i, as TOML and as --json", async (_i, text) => {
    const file = configFile(text);
    for (const args of [["check-config", file], ["check-config", "--json", file]]) {
      const result = await runTurnstream(args, { env: { BROKER_API_KEY: secrets.agentKey } });
      expect(result.code, result.stderr).toBe(0);
      // Masked where a secret was set; a .creds file is shown by its path, its content never read.
      expect(result.stdout).toContain(text.includes("creds =") ? credsFile : "***");
      expectNoSecret(result.stdout + result.stderr, args.join(" "));
    }
  });

  const invalid = [
    `[gateway]\nurl = "ws://127.0.0.1:1/ws"\ntoken = [${toml(secrets.gatewayToken)}]\n`,
    `[bus]\npassword = { value = ${toml(secrets.natsPassword)} }\n`,
    `[bus]\ntoken = [${toml(secrets.natsToken)}]\n`,
    `[agent]\nenv = [${toml(secrets.agentKey)}]\n`,
    `[agent.env]\nAPI_KEY = [${toml(secrets.agentKey)}]\n`,
    `[gateway]\nurl = ${toml(`http://u:${secrets.natsPassword}@gw/ws?token=${secrets.gatewayToken}`)}\n`,
    `[bus]\nurl = ${toml(`edge:${secrets.natsPassword}@127.0.0.1:4222`)}\n`,
    `[bus]\nurl = ${toml(`nats://edge:${secrets.natsPassword}@127.0.0.1:1`)}\ntoken = ${toml(secrets.natsToken)}\n`,
    `[gateway]\nurl = ${toml(`ws://gw/ws?token=${secrets.gatewayToken}`)}\ntoken = ${toml(secrets.gatewayToken)}\n`,
    `[gateway]\nurl = "ws://gw/ws"\ntoken = "${secrets.gatewayToken}\n`,
    `[gateway]\nurl = "ws://gw/ws"\ntoken = ${secrets.gatewayToken}\n`,
  ];
  it.each(invalid.map((text, i) => [i, text] as const))("invalid file %i: exit 2, the problem named, the value not", async (_i, text) => {
    const file = configFile(text);
    for (const args of [["check-config", file], ["run", "--config", file]]) {
      const result = await runTurnstream(args, { env: { HOME: dir } });
      expect(result.code, args[0]).toBe(2);
      expect(result.stderr).toMatch(/^turnstream: /);
      expectNoSecret(result.stdout + result.stderr, args.join(" "));
    }
  });
});

interface BrokerRun {
  readonly child: ChildProcessWithoutNullStreams;
  readonly records: Record<string, unknown>[];
  readonly done: Promise<CliResult>;
}

function startBroker(file: string): BrokerRun {
  const child = spawnTurnstream(["run", "--config", file], {
    env: { LOG_LEVEL: "trace", HOME: dir, BROKER_API_KEY: secrets.agentKey, UNRELATED_SECRET: secrets.brokerEnvSecret },
  });
  const records: Record<string, unknown>[] = [];
  let buffer = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not JSON: the whole output is still checked once the process exits.
      }
    }
  });
  return { child, records, done: finished(child) };
}

/** The environment the agent process actually has, from /proc. */
function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter((entry) => entry !== "");
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]));
}

describe.runIf(natsServerAvailable())("a broker run at LOG_LEVEL=trace never shows a secret, and the agent gets only its own", () => {
  let gateway: DevGateway;
  const replies: ReplyFrame[] = [];
  beforeAll(async () => {
    gateway = await DevGateway.start({ token: secrets.gatewayToken });
    gateway.received.subscribe((frame) => frame.kind === "reply" && replies.push(frame.frame));
  });
  afterAll(async () => gateway.close());

  let prefixes = 0;
  const busKeys = () => `prefix = "nosecret${process.pid}_${++prefixes}"\npartitions = 1\nlease_ttl_secs = 3\n`;

  /** Starts the broker, runs one turn through the real gateway, NATS and agent, stops it, and checks every output. */
  async function turnThrough(gatewayKeys: string, bus: string): Promise<void> {
    const file = configFile(
      `[gateway]\n${gatewayKeys}allow_all_users = true\nallow_all_channels = true\n[bus]\n${bus}${busKeys()}[pool]\nstate_dir = ${toml(join(dir, `state-${files}`))}\n${agentSection}`,
    );
    const before = replies.length;
    const run = startBroker(file);
    try {
      const ready = await until(() => run.records.some((r) => r.msg === "partition lease acquired") && gateway.brokerCount > 0, 20_000);
      expect(ready, JSON.stringify(run.records.slice(-5))).toBe(true);
      gateway.broadcast(userEvent("hello there"));
      // A message, not a status reaction (those arrive first).
      expect(await until(() => replies.slice(before).some((reply) => reply.command === undefined), 20_000)).toBe(true);
      const started = run.records.find((r) => r.msg === "agent started");
      const environ = environOf(Number(started?.agentPid));
      // [agent].env reaches the agent (that is its purpose), ${VAR} expanded; nothing else secret does.
      expect(environ).toMatchObject({ API_KEY: secrets.agentKey, OTHER: secrets.agentOther });
      // Beyond them only what OpenAB passes every agent: HOME, PATH, USER (inherit_env is empty).
      expect(Object.keys(environ).filter((name) => !["HOME", "PATH", "USER"].includes(name)).sort()).toEqual(["API_KEY", "OTHER"]);
      expectNoSecret(Object.entries(environ).map(([name, value]) => `${name}=${value}`).join("\n"), "the agent's environment", [secrets.agentKey, secrets.agentOther]);
    } finally {
      run.child.kill("SIGTERM");
    }
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    // Nothing logs at trace today; debug lines prove the lowest levels were on.
    expect(run.records.some((r) => r.level === 20), "debug lines were written").toBe(true);
    expect(run.records.some((r) => r.msg === "connected to gateway")).toBe(true);
    expectNoSecret(result.stdout + result.stderr, "the broker's output");
    expectNoSecret(JSON.stringify(replies.slice(before)), "the replies");
  }

  describe("NATS user and password", () => {
    let nats: NatsServer;
    beforeAll(async () => {
      nats = await startNatsServer({ args: ["--user", "edge", "--pass", secrets.natsPassword] });
    });
    afterAll(async () => nats.stop());

    it("gateway.token and bus.user/password", async () => {
      await turnThrough(`url = ${toml(gateway.url)}\ntoken = ${toml(secrets.gatewayToken)}\n`, `url = ${toml(nats.url)}\nuser = "edge"\npassword = ${toml(secrets.natsPassword)}\n`);
    });

    it("a wrong password, and a .creds file the server does not know: exit 1, the server named, no secret", async () => {
      for (const bus of [`user = "edge"\npassword = ${toml(`${secrets.natsToken}`)}\n`, `creds = ${toml(credsFile)}\n`]) {
        const file = configFile(`[bus]\nurl = ${toml(nats.url)}\n${bus}${busKeys()}`);
        const result = await runTurnstream(["run", "--config", file], { env: { LOG_LEVEL: "trace", HOME: dir } });
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`cannot connect to NATS at ${nats.url}`);
        expectNoSecret(result.stdout + result.stderr, "a refused connection");
      }
    });
  });

  it("a token in the URLs: ?token= in gateway.url and nats://TOKEN@ in bus.url", async () => {
    const nats = await startNatsServer({ args: ["--auth", secrets.natsToken] });
    try {
      await turnThrough(`url = ${toml(`${gateway.url}?token=${secrets.gatewayToken}`)}\n`, `url = ${toml(nats.url.replace("nats://", `nats://${secrets.natsToken}@`))}\n`);
    } finally {
      await nats.stop();
    }
  });

  it("a .creds file (JWT and nkey seed), and a malformed one", async () => {
    const config = join(dir, "nkey.conf");
    writeFileSync(config, `authorization { users = [ { nkey: ${toml(user.getPublicKey())} } ] }\n`);
    const nats = await startNatsServer({ args: ["-c", config] });
    try {
      await turnThrough(`url = ${toml(gateway.url)}\ntoken = ${toml(secrets.gatewayToken)}\n`, `url = ${toml(nats.url)}\ncreds = ${toml(credsFile)}\n`);
      const malformed = join(dir, "malformed.creds");
      writeFileSync(malformed, credsText.replace("-----BEGIN USER NKEY SEED-----", "-----BEGIN USER NKEY SEED-----\nX"));
      const file = configFile(`[bus]\nurl = ${toml(nats.url)}\ncreds = ${toml(malformed)}\n${busKeys()}`);
      const result = await runTurnstream(["run", "--config", file], { env: { LOG_LEVEL: "trace", HOME: dir } });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`bus.creds: ${malformed} is not a NATS credentials file`);
      expectNoSecret(result.stdout + result.stderr, "a malformed .creds file");
    } finally {
      await nats.stop();
    }
  });
});
