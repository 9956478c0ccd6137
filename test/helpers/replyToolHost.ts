import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Subscription } from "rxjs";
import { afterEach } from "vitest";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import type { McpHttpServer, McpOffer, McpStdioServer } from "../../src/acp/mcpServers.js";
import { ReplyToolHost, type ReplyToolHostOptions } from "../../src/mcp/replyToolHost.js";
import type { ReplyToolSpec } from "../../src/mcp/replyToolSpec.js";
import { captureLogs, type LogRecord } from "./logCapture.js";

export type Via = "stdio" | "http";

export const replyToolSpecs: Record<"structured" | "sequential", ReplyToolSpec> = {
  structured: { mode: "envelope", maxBubbles: 4, maxBubbleChars: 1200, schema: "openab.turn.v1" },
  sequential: { mode: "sequential", maxBubbles: 6, schema: "openab.turn.v1" },
};

export const stdioEntry = (offer: McpOffer): McpStdioServer => {
  const entry = offer.servers.find((server): server is McpStdioServer => !("type" in server));
  if (entry === undefined) throw new Error("no stdio entry offered");
  return entry;
};
export const httpEntry = (offer: McpOffer): McpHttpServer => {
  const entry = offer.servers.find((server): server is McpHttpServer => "type" in server && server.type === "http");
  if (entry === undefined) throw new Error("no http entry offered");
  return entry;
};
export const envOf = (entry: McpStdioServer): Record<string, string> => Object.fromEntries(entry.env.map(({ name, value }) => [name, value]));
export const secretOf = (offer: McpOffer): string => {
  const secret = envOf(stdioEntry(offer)).TURNSTREAM_MCP_SECRET;
  if (secret === undefined) throw new Error("no secret in the stdio entry");
  return secret;
};
export const socketPathOf = (offer: McpOffer): string => envOf(stdioEntry(offer)).TURNSTREAM_MCP_ENDPOINT ?? "";

export const callReply = (client: Client, args: Record<string, unknown>) => client.callTool({ name: "reply", arguments: args }) as Promise<CallToolResult>;
export const textOf = (result: CallToolResult): string => result.content.map((part) => (part.type === "text" ? part.text : "")).join("");

/** What `useReplyToolHost` gives a test file: an in-process host and real MCP SDK clients of it, all closed after each test. */
export interface ReplyToolHostFixture {
  start(spec?: ReplyToolSpec, options?: Partial<ReplyToolHostOptions>): Promise<{ host: ReplyToolHost; records: LogRecord[] }>;
  /** A client on the stdio entry: the real `turnstream mcp` relay, spawned. */
  connectStdio(entry: McpStdioServer, env?: Record<string, string>): Promise<Client>;
  connectHttp(url: string, headers: Record<string, string>): Promise<Client>;
  connectVia(offer: McpOffer, via: Via): Promise<Client>;
  /** Opens a turn of `key`: the calls it accepts, as its events. */
  openTurn(host: ReplyToolHost, key: string): AgentEvent[];
}

/** An in-process `ReplyToolHost` per test (its socket and HTTP endpoints real), and clients of it. */
export function useReplyToolHost(): ReplyToolHostFixture {
  let host: ReplyToolHost | undefined;
  const clients: Client[] = [];
  const turns: Subscription[] = [];
  afterEach(async () => {
    for (const turn of turns.splice(0)) turn.unsubscribe();
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    await host?.close();
    host = undefined;
  });
  const fixture: ReplyToolHostFixture = {
    async start(spec = replyToolSpecs.structured, options = {}) {
      const { logger, records } = captureLogs();
      host = new ReplyToolHost({ spec, logger, ...options });
      await host.start();
      return { host, records };
    },
    async connectStdio(entry, env = envOf(entry)) {
      const client = new Client({ name: "reply-tool-test", version: "1" });
      await client.connect(new StdioClientTransport({ command: entry.command, args: [...entry.args], env, stderr: "pipe" }));
      clients.push(client);
      return client;
    },
    async connectHttp(url, headers) {
      const client = new Client({ name: "reply-tool-test", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    connectVia(offer, via) {
      if (via === "stdio") return fixture.connectStdio(stdioEntry(offer));
      const entry = httpEntry(offer);
      return fixture.connectHttp(entry.url, Object.fromEntries(entry.headers.map(({ name, value }) => [name, value])));
    },
    openTurn(reply, key) {
      const events: AgentEvent[] = [];
      turns.push(reply.turnCalls(key).subscribe((event) => events.push(event)));
      return events;
    },
  };
  return fixture;
}
