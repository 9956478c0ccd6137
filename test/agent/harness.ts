import { PassThrough } from "node:stream";
import { JsonRpcConnection } from "../../src/acp/connection.js";
import { RpcError } from "../../src/acp/jsonRpc.js";
import type { AgentSettings } from "../../src/agent/agentSettings.js";
import { builtInLookupTable } from "../../src/agent/lookupTool.js";
import { serveReferenceAgent } from "../../src/agent/referenceAgent.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";
import { FakeChatCompletions, type ScriptStep } from "../helpers/fakeChatCompletions.js";

export interface Frame {
  readonly jsonrpc: string;
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: { sessionId: string; update: Record<string, unknown> & { sessionUpdate: string } };
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** The reference agent wired to turnstream's own ACP client through in-memory streams, with a fake model. */
export interface AgentHarness {
  readonly fake: FakeChatCompletions;
  readonly client: JsonRpcConnection;
  /** Every line the agent wrote, parsed, in order. */
  readonly frames: Frame[];
  readonly records: LogRecord[];
  /** The `session/update` payloads of `sessionId`, in order. */
  updates(sessionId?: string): Frame["params"][];
  /** Writes a raw line onto the agent's input, as a misbehaving client would. */
  writeRaw(line: string): void;
  /** `session/new`, offering `mcpServers` (none by default). */
  newSession(mcpServers?: readonly unknown[]): Promise<string>;
  prompt(sessionId: string, text: string): Promise<{ stopReason: string }>;
  /** Ends the agent's input, then closes the client, the agent (its MCP servers) and the fake. */
  close(): Promise<void>;
}

export async function startAgent(script: ScriptStep[], overrides: Partial<AgentSettings> = {}): Promise<AgentHarness> {
  const fake = await FakeChatCompletions.start(script);
  const toAgent = new PassThrough();
  const fromAgent = new PassThrough();
  const frames: Frame[] = [];
  let partial = "";
  fromAgent.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) frames.push(JSON.parse(line) as Frame);
  });
  const { logger, records } = captureLogs();
  const settings: AgentSettings = {
    baseUrl: fake.url,
    model: "fake-model",
    mode: "envelope",
    maxBubbles: 4,
    maxBubbleChars: 1200,
    maxSteps: 8,
    timeoutMs: 5_000,
    systemPrompt: "You are a test agent.",
    schema: "openab.turn.v1",
    silentToken: "NO_REPLY",
    lookupTable: builtInLookupTable,
    ...overrides,
  };
  const agent = serveReferenceAgent({ input: toAgent, output: fromAgent, settings, logger });
  const client = new JsonRpcConnection({
    input: fromAgent,
    output: toAgent,
    logger,
    onRequest: (method) => {
      throw new RpcError(-32601, `unexpected agent request ${method}`);
    },
  });
  await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 5_000);
  return {
    fake,
    client,
    frames,
    records,
    updates: (sessionId) =>
      frames.filter((frame) => frame.method === "session/update" && (sessionId === undefined || frame.params?.sessionId === sessionId)).map((frame) => frame.params),
    writeRaw: (line) => void toAgent.write(`${line}\n`),
    newSession: async (mcpServers = []) => (await client.request<{ sessionId: string }>("session/new", { cwd: "/tmp", mcpServers }, 5_000)).sessionId,
    prompt: (sessionId, text) => client.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 15_000),
    close: async () => {
      toAgent.end();
      client.close();
      await agent.close();
      await fake.close();
    },
  };
}
