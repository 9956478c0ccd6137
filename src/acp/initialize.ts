import { z } from "zod";
import type { PromptCapabilities } from "../../operators/dispatch/contentBlock.js";
import { untrustedName } from "../../operators/ingress/untrustedText.js";
import type { JsonRpcConnection } from "./connection.js";
import { AcpProtocolError } from "./errors.js";
import type { McpCapabilities } from "./mcpServers.js";

// Read leniently: a malformed `mcpCapabilities` only means the agent gets no HTTP server offered.
const mcpCapabilities = z.looseObject({ http: z.boolean().optional() }).nullish().catch(undefined);
// Likewise: a malformed `promptCapabilities` means text (and images) only.
const promptCapabilities = z.looseObject({ embeddedContext: z.boolean().optional() }).nullish().catch(undefined);
const initializeResult = z.looseObject({
  protocolVersion: z.number(),
  agentCapabilities: z
    .looseObject({ loadSession: z.boolean().optional(), mcpCapabilities: mcpCapabilities, promptCapabilities: promptCapabilities })
    .optional(),
  agentInfo: z.looseObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
});

/** What `initialize` told of the agent. */
export interface InitializedAgent {
  /** The name the agent reports (cleaned), else its `[agent] command`. */
  readonly agentName: string;
  readonly supportsLoadSession: boolean;
  readonly mcpCapabilities: McpCapabilities;
  /** What its prompts may hold beyond text: `embeddedContext` lets a user's document go as a `resource` block. */
  readonly promptCapabilities: PromptCapabilities;
}

export interface InitializeOptions {
  /** `[agent] command`: the agent's name when it reports none. */
  readonly command: string;
  readonly clientVersion?: string;
  readonly requestMs: number;
}

/**
 * ACP v1's `initialize`: offers no fs and no terminal, and reads what the agent can do. Rejects
 * with `AcpProtocolError` for a malformed result or another protocol version.
 */
export async function initialize(connection: JsonRpcConnection, { command, clientVersion, requestMs }: InitializeOptions): Promise<InitializedAgent> {
  const raw = await connection.request(
    "initialize",
    {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: "turnstream", version: clientVersion ?? "0.0.0" },
    },
    requestMs,
  );
  const init = initializeResult.safeParse(raw);
  if (!init.success) throw new AcpProtocolError("initialize", "a malformed result");
  if (init.data.protocolVersion !== 1) throw new AcpProtocolError("initialize", `protocol version ${init.data.protocolVersion}`);
  const reportedName = init.data.agentInfo?.name;
  return {
    agentName: reportedName === undefined ? command : untrustedName(reportedName),
    supportsLoadSession: init.data.agentCapabilities?.loadSession === true,
    mcpCapabilities: { http: init.data.agentCapabilities?.mcpCapabilities?.http === true },
    promptCapabilities: { embeddedContext: init.data.agentCapabilities?.promptCapabilities?.embeddedContext === true },
  };
}
