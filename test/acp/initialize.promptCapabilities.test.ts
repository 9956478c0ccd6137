import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { JsonRpcConnection } from "../../src/acp/connection.js";
import { initialize } from "../../src/acp/initialize.js";
import { RpcError } from "../../src/acp/jsonRpc.js";
import { captureLogs } from "../helpers/logCapture.js";

// What `initialize` reads of `agentCapabilities.promptCapabilities`: `embeddedContext` decides
// whether a document a user sends goes to the agent as a resource block. Both ends in memory; the
// scripted agent's EMBEDDED_CONTEXT over a real process is in test/e2e/inboundDocuments.test.ts.

/** `initialize` against an agent that answers with `agentCapabilities`. */
async function initializedWith(agentCapabilities: unknown) {
  const input = new PassThrough();
  const output = new PassThrough();
  output.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n").filter((one) => one !== "")) {
      const request = JSON.parse(line) as { id: number };
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { protocolVersion: 1, agentCapabilities } })}\n`);
    }
  });
  const connection = new JsonRpcConnection({
    input,
    output,
    logger: captureLogs().logger,
    onRequest: () => {
      throw new RpcError(-32601, "Method not found");
    },
  });
  try {
    return await initialize(connection, { command: "agent", requestMs: 5_000 });
  } finally {
    connection.close();
  }
}

describe("initialize: promptCapabilities", () => {
  it("embeddedContext: true is read", async () => {
    expect((await initializedWith({ promptCapabilities: { image: true, embeddedContext: true } })).promptCapabilities).toEqual({ embeddedContext: true });
  });

  it("omitted, false, malformed or not a boolean all mean unsupported (ACP: omitted capabilities are unsupported)", async () => {
    for (const capabilities of [undefined, {}, { promptCapabilities: {} }, { promptCapabilities: { embeddedContext: false } }, { promptCapabilities: null }, { promptCapabilities: "yes" }, { promptCapabilities: { embeddedContext: "true" } }]) {
      const agent = await initializedWith(capabilities);
      expect(agent.promptCapabilities).toEqual({ embeddedContext: false });
    }
  });

  it("a malformed promptCapabilities costs nothing else the agent said", async () => {
    const agent = await initializedWith({ loadSession: true, promptCapabilities: 42, mcpCapabilities: { http: true } });
    expect(agent).toMatchObject({ supportsLoadSession: true, mcpCapabilities: { http: true }, promptCapabilities: { embeddedContext: false } });
  });
});
