import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { packageVersion } from "../version.js";
import { TurnstreamServerError } from "./errors.js";

/** The name turnstream offers each ACP session its own MCP server under (`mcpServers[].name`). */
export const TURNSTREAM_SERVER_NAME = "turnstream";

/** Connecting and listing the tools: the relay is a local process, so this is generous. */
const CONNECT_TIMEOUT_MS = 10_000;

const nameValue = z.looseObject({ name: z.string().max(256), value: z.string().max(4096) });

// The client's `McpServer` stdio entry (ACP: no `type`, or `"stdio"`). Bounded: it comes over the wire.
const stdioEntrySchema = z.looseObject({
  name: z.literal(TURNSTREAM_SERVER_NAME),
  type: z.literal("stdio").optional(),
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(4096)).max(64).default([]),
  env: z.array(nameValue).max(64).default([]),
});

/** A `turnstream` stdio entry as offered in `session/new`. */
export type TurnstreamStdioEntry = z.output<typeof stdioEntrySchema>;

/**
 * The stdio entry named `turnstream` among a session's offered MCP servers (`session/new`'s
 * `mcpServers`, unchecked), or undefined. HTTP entries are skipped: the reference agent does not
 * advertise `mcpCapabilities.http`, so the broker offers it stdio alone.
 */
export function turnstreamEntry(mcpServers: unknown): TurnstreamStdioEntry | undefined {
  if (!Array.isArray(mcpServers)) return undefined;
  for (const server of mcpServers) {
    const parsed = stdioEntrySchema.safeParse(server);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/**
 * How the agent starts the entry's server: its command, its args, its env over the SDK's safe
 * default environment (never the agent's own, which holds the model's API key).
 */
export function stdioTransportOf(entry: TurnstreamStdioEntry): Transport {
  const env = Object.fromEntries(entry.env.map(({ name, value }) => [name, value]));
  // stderr inherited: the relay's one-line failures reach the agent's stderr, which the broker logs.
  return new StdioClientTransport({ command: entry.command, args: entry.args, env, stderr: "inherit" });
}

/** One session's connection to the broker's `turnstream` MCP server. */
export interface TurnstreamServer {
  /** The tools the server listed: `ask` in every delivery mode, `reply` in the bubble modes. */
  readonly tools: ReadonlySet<string>;
  /** The connection ended (the relay exited, the broker went away): a later prompt connects again. */
  readonly closed: boolean;
  callTool(name: string, args: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Connects an MCP SDK client over `transport` and lists the server's tools. Rejects with
 * `TurnstreamServerError` (the transport closed again) when either fails or takes over 10 s.
 */
export async function connectTurnstream(transport: Transport): Promise<TurnstreamServer> {
  const client = new Client({ name: "turnstream-agent", version: packageVersion() });
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  let tools: ReadonlySet<string>;
  try {
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    const listed = await client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS });
    tools = new Set(listed.tools.map((tool) => tool.name));
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new TurnstreamServerError(`cannot connect to the ${TURNSTREAM_SERVER_NAME} MCP server`, { cause: err });
  }
  return {
    tools,
    get closed() {
      return closed;
    },
    callTool: async (name, args, options) => (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult,
    close: () => client.close(),
  };
}
