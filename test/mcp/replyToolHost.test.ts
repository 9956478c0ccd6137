import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { connect as connectSocket } from "node:net";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import type { McpOffer } from "../../src/acp/mcpServers.js";
import { replyToolSchema } from "../../src/agent/replyTool.js";
import { ReplyToolHost } from "../../src/mcp/replyToolHost.js";
import type { ReplyToolSpec } from "../../src/mcp/replyToolSpec.js";
import { runTurnstream } from "../helpers/cli.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";
import { callReply as call, envOf, httpEntry, replyToolSpecs as specs, secretOf, stdioEntry, textOf, useReplyToolHost, type Via } from "../helpers/replyToolHost.js";

const KEY = "slack:C42";
const fixture = useReplyToolHost();
const startHost = (spec?: ReplyToolSpec) => fixture.start(spec);
const { connectStdio, connectHttp } = fixture;
const connectVia = (offer: McpOffer, via: Via) => fixture.connectVia(offer, via);
const openTurn = (reply: ReplyToolHost) => fixture.openTurn(reply, KEY);

/** No captured log record holds any of the secrets, in any field. */
function expectNoSecret(records: readonly LogRecord[], ...secrets: string[]): void {
  for (const record of records) {
    const line = JSON.stringify(record);
    for (const secret of secrets) expect(line).not.toContain(secret);
  }
}

describe("ReplyToolHost offers", () => {
  it("offers a stdio entry named turnstream that runs `node <cli> mcp`, and HTTP only when the agent can", async () => {
    const { host } = await startHost();
    const withoutHttp = host.offer("k1", { http: false });
    expect(withoutHttp.servers).toHaveLength(1);
    const stdio = stdioEntry(withoutHttp);
    expect(stdio).toMatchObject({ name: "turnstream", command: process.execPath });
    expect(stdio.args.at(-1)).toBe("mcp");
    expect(Object.keys(envOf(stdio)).sort()).toEqual(["TURNSTREAM_MCP_ENDPOINT", "TURNSTREAM_MCP_SECRET"]);
    const withHttp = host.offer("k2", { http: true });
    const http = httpEntry(withHttp);
    expect(http.name).toBe("turnstream");
    expect(new URL(http.url).hostname).toBe("127.0.0.1");
    expect(http.headers).toEqual([{ name: "Authorization", value: `Bearer ${secretOf(withHttp)}` }]);
    // 32 random bytes, base64url; one per session.
    expect(secretOf(withHttp)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secretOf(withHttp)).not.toBe(secretOf(withoutHttp));
    expect(host.sessions).toBe(2);
  });

  it("refuses to offer before start", () => {
    const { logger } = captureLogs();
    expect(() => new ReplyToolHost({ spec: specs.structured, logger }).offer(KEY, { http: true })).toThrow(/once started/);
  });

  it("puts the socket in a 0700 directory, itself 0600, and removes them on close", async () => {
    const { host } = await startHost();
    const socketPath = envOf(stdioEntry(host.offer(KEY, { http: false }))).TURNSTREAM_MCP_ENDPOINT ?? "";
    expect((await stat(dirname(socketPath))).mode & 0o777).toBe(0o700);
    const socket = await stat(socketPath);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    await host.close();
    expect(existsSync(dirname(socketPath))).toBe(false);
  });

  it("revokes a session key's earlier secret when it is offered again", async () => {
    const { host } = await startHost();
    const first = host.offer(KEY, { http: true });
    const stale = await connectVia(first, "http");
    const fresh = await connectVia(host.offer(KEY, { http: true }), "http");
    const events = openTurn(host);
    // The earlier bearer is no longer live: 401 before MCP.
    await expect(call(stale, { messages: ["old session"] })).rejects.toMatchObject({ code: 401 });
    expect((await call(fresh, { messages: ["new session"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
    expect(host.sessions).toBe(1);
  });
});

describe.each<Via>(["stdio", "http"])("the reply tool's schema over %s", (via) => {
  it.each(["structured", "sequential"] as const)("tools/list shows exactly `reply`, `ask` and `send_file`, reply's inputSchema the agent kit's (%s)", async (mode) => {
    const spec = specs[mode];
    const { host } = await startHost(spec);
    const client = await connectVia(host.offer(KEY, { http: true }), via);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["reply", "ask", "send_file"]);
    const { $schema: _dialect, ...inputSchema } = tools[0]?.inputSchema as Record<string, unknown>;
    expect(inputSchema).toEqual(replyToolSchema(spec));
    expect(client.getServerVersion()?.name).toBe("turnstream");
  });
});

it("text mode (reply off): tools/list shows only `ask` and `send_file`; send_file's input is path or data, filename, caption, nothing else", async () => {
  const { host } = await startHost({ ...specs.sequential, reply: false });
  const client = await connectVia(host.offer(KEY, { http: true }), "stdio");
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(["ask", "send_file"]);
  const sendFile = tools[1]?.inputSchema as { properties: Record<string, unknown>; additionalProperties?: boolean };
  expect(Object.keys(sendFile.properties).sort()).toEqual(["caption", "data", "filename", "path"]);
  expect(sendFile.additionalProperties).toBe(false);
});

describe("unknown secrets", () => {
  it("refuses every call over stdio with a secret no session holds, and never logs either secret", async () => {
    const { host, records } = await startHost();
    const offer = host.offer(KEY, { http: true });
    openTurn(host);
    const wrong = randomBytes(32).toString("base64url");
    const entry = stdioEntry(offer);
    const client = await connectStdio(entry, { ...envOf(entry), TURNSTREAM_MCP_SECRET: wrong });
    const result = await call(client, { messages: ["hi"] });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("nothing was sent");
    expect(records.filter((r) => r.msg === "reply tool call refused").map((r) => r.reason)).toEqual(["reply_tool_unknown_secret"]);
    expectNoSecret(records, wrong, secretOf(offer));
  });

  it.each([
    ["no Authorization header", {}, 'Bearer realm="turnstream"'],
    ["a wrong bearer", { Authorization: `Bearer ${randomBytes(32).toString("base64url")}` }, 'Bearer realm="turnstream", error="invalid_token"'],
    ["the right secret, not as a bearer", { Authorization: "" }, 'Bearer realm="turnstream"'],
  ])("answers 401 before MCP over HTTP with %s, and never logs a secret", async (_case, headers: Record<string, string>, challenge) => {
    const { host, records } = await startHost();
    const offer = host.offer(KEY, { http: true });
    const events = openTurn(host);
    const sent = headers.Authorization === "" ? { Authorization: secretOf(offer) } : headers;
    // The SDK client's initialize is refused: no MCP server ever answers such a request.
    await expect(connectHttp(httpEntry(offer).url, sent)).rejects.toMatchObject({ code: 401 });
    const response = await fetch(httpEntry(offer).url, {
      method: "POST",
      headers: { ...sent, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "reply", arguments: { messages: ["hi"] } } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(challenge);
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.text()).not.toContain("reply");
    expect(events).toEqual([]);
    expect(records.find((r) => r.msg === "reply tool request refused: no live bearer")).toMatchObject({ reason: "mcp_unauthorized", endpoint: "http", count: 1 });
    expectNoSecret(records, secretOf(offer), ...Object.values(sent).map((value) => value.replace(/^Bearer /, "")).filter(Boolean));
  });

  it("logs no secret anywhere over a session's whole life (calls, refusals, release)", async () => {
    const { host, records } = await startHost();
    const offer = host.offer(KEY, { http: true });
    const client = await connectVia(offer, "stdio");
    await call(client, { messages: ["no turn yet"] });
    openTurn(host);
    await call(client, { messages: ["in the turn"] });
    await call(client, { messages: ["again"] });
    offer.release();
    await call(client, { messages: ["revoked"] });
    expect(records.length).toBeGreaterThanOrEqual(4);
    expectNoSecret(records, secretOf(offer));
  });
});

describe("the socket endpoint under bad clients", () => {
  it("closes a connection that sends 1 MB without a newline, and keeps serving others", async () => {
    const { host, records } = await startHost();
    const offer = host.offer(KEY, { http: false });
    const socketPath = envOf(stdioEntry(offer)).TURNSTREAM_MCP_ENDPOINT ?? "";
    const closed = await new Promise<boolean>((resolve, reject) => {
      const socket = connectSocket(socketPath);
      const timer = setTimeout(() => reject(new Error("the endpoint did not close the connection")), 15_000);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
      socket.on("connect", () => socket.write(Buffer.alloc(1024 * 1024, 0x61)));
    });
    expect(closed).toBe(true);
    expect(records.find((r) => r.msg === "reply tool connection did not start with a secret; closed")).toMatchObject({ reason: "mcp_bad_hello" });
    const events = openTurn(host);
    const client = await connectVia(offer, "stdio");
    expect((await call(client, { messages: ["still here"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
  });

  it("survives a connection that sends its secret and then garbage", async () => {
    const { host } = await startHost();
    const offer = host.offer(KEY, { http: false });
    const socketPath = envOf(stdioEntry(offer)).TURNSTREAM_MCP_ENDPOINT ?? "";
    await new Promise<void>((resolve) => {
      const socket = connectSocket(socketPath, () => {
        socket.write(`${secretOf(offer)}\nnot json at all\n{"jsonrpc":"2.0","id":1,"method":"nope"}\n\u0000\u00ff\n`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
      socket.on("error", () => undefined);
    });
    const events = openTurn(host);
    const client = await connectVia(offer, "stdio");
    expect((await call(client, { messages: ["fine"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
  });
});

describe("turnstream mcp", () => {
  const bareEnv = { TURNSTREAM_MCP_ENDPOINT: "", TURNSTREAM_MCP_SECRET: "" };

  it("exits 1 with one stderr line when its environment is missing", async () => {
    const result = await runTurnstream(["mcp"], { env: bareEnv });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("TURNSTREAM_MCP_ENDPOINT");
  });

  it("exits 1 with one stderr line and no secret when only the secret is set", async () => {
    const secret = randomBytes(32).toString("base64url");
    const result = await runTurnstream(["mcp"], { env: { ...bareEnv, TURNSTREAM_MCP_SECRET: secret } });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr + result.stdout).not.toContain(secret);
  });

  it("exits 1 with one stderr line and no secret when the broker's socket is not there", async () => {
    const secret = randomBytes(32).toString("base64url");
    const result = await runTurnstream(["mcp"], { env: { TURNSTREAM_MCP_ENDPOINT: "/tmp/turnstream-no-such-dir/reply.sock", TURNSTREAM_MCP_SECRET: secret } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("cannot reach the broker");
    expect(result.stderr).not.toContain(secret);
  });

  it("prints its usage for --help", async () => {
    const result = await runTurnstream(["mcp", "--help"], { env: bareEnv });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: turnstream mcp");
    expect(result.stdout).toContain("TURNSTREAM_MCP_SECRET");
  });
});
