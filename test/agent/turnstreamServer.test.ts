import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TurnstreamServerError } from "../../src/agent/errors.js";
import { connectTurnstream, stdioTransportOf, turnstreamEntry } from "../../src/agent/turnstreamServer.js";

const stdio = { name: "turnstream", command: "/usr/bin/node", args: ["cli.js", "mcp"], env: [{ name: "TURNSTREAM_MCP_SECRET", value: "s3cret" }] };
const http = { type: "http", name: "turnstream", url: "http://127.0.0.1:9/mcp", headers: [{ name: "Authorization", value: "Bearer s3cret" }] };

describe("turnstreamEntry", () => {
  it("picks the stdio entry named turnstream, whatever else is offered", () => {
    expect(turnstreamEntry([http, { ...stdio, name: "other" }, stdio])).toEqual(stdio);
    expect(turnstreamEntry([{ ...stdio, type: "stdio" }])).toMatchObject({ command: "/usr/bin/node" });
  });

  it("finds none in an HTTP-only, empty, malformed or missing offer", () => {
    for (const offer of [[http], [], undefined, "turnstream", [null, 3, { name: "turnstream" }], [{ ...stdio, command: "" }], [{ ...stdio, env: [{ name: "A" }] }]]) {
      expect(turnstreamEntry(offer)).toBeUndefined();
    }
  });

  it("fills in args and env an entry leaves out", () => {
    expect(turnstreamEntry([{ name: "turnstream", command: "relay" }])).toMatchObject({ args: [], env: [] });
  });

  it("builds a stdio transport for it", () => {
    const entry = turnstreamEntry([stdio]);
    expect(entry).toBeDefined();
    if (entry !== undefined) expect(stdioTransportOf(entry)).toBeDefined();
  });
});

describe("connectTurnstream", () => {
  it("lists the server's tools", async () => {
    const mcp = new McpServer({ name: "turnstream", version: "test" });
    for (const name of ["reply", "ask"]) mcp.registerTool(name, { description: name, inputSchema: z.object({}) }, () => ({ content: [] }));
    const [agentSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const server = await connectTurnstream(agentSide);
    expect([...server.tools].sort()).toEqual(["ask", "reply"]);
    expect(server.closed).toBe(false);
    await server.close();
    expect(server.closed).toBe(true);
  });

  it("a server that cannot be started is a TurnstreamServerError with the cause", async () => {
    const entry = turnstreamEntry([{ name: "turnstream", command: "/nonexistent/turnstream-relay" }]);
    if (entry === undefined) throw new Error("no entry");
    const err = await connectTurnstream(stdioTransportOf(entry)).catch((error: unknown) => error);
    expect(err).toBeInstanceOf(TurnstreamServerError);
    expect((err as Error).cause).toBeInstanceOf(Error);
  });
});
