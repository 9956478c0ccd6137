import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { scriptedAgentPath } from "../helpers/agents.js";
import { finished, runTurnstream, spawnTurnstream, waitForLine } from "../helpers/cli.js";
import { until } from "../helpers/stack.js";

const dir = mkdtempSync(join(tmpdir(), "turnstream-devgw-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The HTTP status of a GET with any Host header (fetch may not set one). */
function statusOf(url: string, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: host === undefined ? {} : { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    })
      .on("error", reject)
      .end();
  });
}

/** "open" or the status a WebSocket upgrade was refused with. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<number | "open"> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    ws.once("open", () => (ws.close(), resolve("open")));
    ws.once("error", reject);
  });
}

describe("turnstream dev-gateway with a separate turnstream run (two real processes)", () => {
  it("relays a typed message to the broker and prints the agent's reply as a bubble", async () => {
    const gateway = spawnTurnstream(["dev-gateway", "--listen", "127.0.0.1:0", "--token", "s3cret"]);
    const gatewayDone = finished(gateway);
    const banner = await waitForLine(gateway, (line) => line.startsWith("dev gateway: brokers connect to "));
    const url = /connect to (ws:\/\/\S+?)\?token=s3cret;/.exec(banner)?.[1];
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    const health = await fetch(new URL("/health?token=s3cret", url!.replace("ws://", "http://")));
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

  it("makes a token when none is configured, prints it in both URLs, refuses everything without it, and says why on stderr without the token", async () => {
    const gateway = spawnTurnstream(["dev-gateway", "--listen", "127.0.0.1:0"]);
    const done = finished(gateway);
    const banner = await waitForLine(gateway, (line) => line.startsWith("dev gateway: brokers connect to "));
    const [, brokerUrl, token, pageUrl] = /connect to (ws:\/\/\S+?)\?token=(\S+); chat page (\S+)$/.exec(banner) ?? [];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const origin = brokerUrl!.replace("ws://", "http://").replace(/\/ws$/, "");
    expect(pageUrl).toBe(`${origin}/?token=${token}`);

    expect(await statusOf(pageUrl!)).toBe(200);
    expect(await statusOf(`${origin}/`)).toBe(401);
    expect(await statusOf(`${origin}/health`)).toBe(401);
    expect(await statusOf(`${origin}/health?token=${token}`)).toBe(200);
    expect(await upgrade(`${brokerUrl}?token=${token!.slice(1)}`)).toBe(401);
    expect(await upgrade(`${origin.replace("http://", "ws://")}/ui?token=${token}`, { origin: "http://evil.example" })).toBe(403);
    expect(await upgrade(`${brokerUrl}?token=${token}`, { host: "evil.example" })).toBe(403);

    // With the printed token a broker connects and gets what is typed.
    const broker = new WebSocket(`${brokerUrl}?token=${token}`);
    const events: string[] = [];
    broker.on("message", (data) => events.push(data.toString()));
    await new Promise((resolve, reject) => broker.once("open", resolve).once("error", reject));
    gateway.stdin.write("hello\n");
    expect(await until(() => events.length === 1, 10_000)).toBe(true);
    expect(JSON.parse(events[0]!)).toMatchObject({ schema: "openab.gateway.event.v1", content: { text: "hello" } });
    broker.close();

    gateway.stdin.end();
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split("\n")).toEqual([
      "dev gateway: refused HTTP / with 401 (token_missing)",
      "dev gateway: refused HTTP /health with 401 (token_missing)",
      "dev gateway: refused WebSocket /ws with 401 (token_wrong)",
      "dev gateway: refused WebSocket /ui with 403 (origin_not_allowed)",
      "dev gateway: refused WebSocket /ws with 403 (host_not_allowed)",
    ]);
    // The token is printed where the developer needs it (the banner) and nowhere else.
    expect(result.stderr).not.toContain(token!.slice(1, 20));
    expect(result.stdout.replace(banner, "")).not.toContain(token!.slice(1, 20));
  });

  it("answers the Host names in [dev_gateway] allowed_hosts, and uses its token", async () => {
    const config = join(dir, "gateway.toml");
    writeFileSync(config, ['[dev_gateway]', 'listen = "127.0.0.1:0"', 'token = "from-config_1"', 'allowed_hosts = ["devbox.test"]'].join("\n"));
    const gateway = spawnTurnstream(["dev-gateway", "--config", config]);
    const done = finished(gateway);
    const banner = await waitForLine(gateway, (line) => line.startsWith("dev gateway: brokers connect to "));
    const pageUrl = /chat page (\S+)$/.exec(banner)?.[1];
    expect(pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=from-config_1$/);
    const port = new URL(pageUrl!).port;
    expect(await statusOf(pageUrl!, `devbox.test:${port}`)).toBe(200);
    expect(await statusOf(pageUrl!, `evil.test:${port}`)).toBe(403);
    gateway.stdin.end();
    expect((await done).code).toBe(0);
  });

  it("refuses a token that cannot travel in ?token= with exit 2, without printing it", async () => {
    const flag = await runTurnstream(["dev-gateway", "--listen", "127.0.0.1:0", "--token", "pass word&x"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--token is not allowed (value hidden)");
    expect(flag.stderr + flag.stdout).not.toContain("word&x");
    const config = join(dir, "bad-token.toml");
    writeFileSync(config, ['[dev_gateway]', 'token = "pass word&y"'].join("\n"));
    const file = await runTurnstream(["dev-gateway", "--config", config]);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain("dev_gateway.token");
    expect(file.stderr + file.stdout).not.toContain("word&y");
  });

  it("refuses a malformed --listen with exit 2", async () => {
    const result = await runTurnstream(["dev-gateway", "--listen", "nowhere"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("expected HOST:PORT");
  });
});
