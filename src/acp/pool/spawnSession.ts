import { resolve as resolvePath } from "node:path";
import type { Logger } from "../../log/logger.js";
import type { AgentConfig, Config } from "../../config/index.js";
import type { SessionStore } from "../../state/sessionStore.js";
import { AcpClient, type AcpClientOptions } from "../client.js";
import type { McpOffer, McpOffers } from "../mcpServers.js";
import type { AgentHost, AgentHosts } from "./agentHosts.js";
import { openSession } from "./openSession.js";

/** What a session on an agent process needs (the pool's options). */
export interface SpawnSessionOptions {
  readonly agent: AgentConfig;
  readonly pool: Pick<Config["pool"], "default_config_options">;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly store: SessionStore;
  readonly client?: Pick<AcpClientOptions, "timeouts" | "killAfterMs" | "clientVersion" | "onAgentExit" | "redact">;
  readonly mcp?: McpOffers;
}

/** A key's session on its agent process, as `openSession` opened it. */
export interface SpawnedSession {
  readonly client: AcpClient;
  /** The process it lives on, left when the session ends (`AgentHosts.leave`). */
  readonly host: AgentHost;
  readonly sessionId: string;
  readonly offer: McpOffer | undefined;
  readonly resumed: boolean;
  /** The key had a saved session id (resumed or not). */
  readonly hadSaved: boolean;
}

export interface SpawnHooks<T> {
  /** Only the saved session will do (`SessionPool.restore`). */
  readonly mustResume: boolean;
  /** Takes the session into the pool, in the same tick it opened; a throw ends it like a failed start. */
  readonly adopt: (spawned: SpawnedSession) => T;
  /** Told of a failed start's leaving its process (the process closed when it was its last) before it is awaited. */
  readonly closing: (closed: Promise<void>) => void;
}

/**
 * Opens `key`'s session on an agent process with room (`AgentHosts.place`: a shared one, or one
 * started for it), offers it the session's MCP servers (`openSession`: resumed, or new), then
 * hands it to `adopt`. When any of it fails, the MCP servers are released, the session leaves its
 * process (stopped when it was its last) and the error is thrown once that is done.
 */
export async function spawnSession<T>(key: string, options: SpawnSessionOptions, hosts: AgentHosts, { mustResume, adopt, closing }: SpawnHooks<T>): Promise<T> {
  const host = hosts.place();
  let offer: McpOffer | undefined;
  try {
    const { agent, logger, store } = options;
    const client = await host.started;
    offer = options.mcp?.offer(key, client.mcpCapabilities);
    const { sessionId, resumed, hadSaved } = await openSession(client, {
      key,
      cwd: resolvePath(agent.working_dir),
      servers: offer?.servers ?? [],
      store,
      defaultOptions: options.pool.default_config_options,
      logger,
      mustResume,
    });
    return adopt({ client, host, sessionId, offer, resumed, hadSaved });
  } catch (err) {
    offer?.release();
    const closed = hosts.leave(host);
    closing(closed);
    await closed;
    throw err;
  }
}

/** Starts one agent process for the pool (`AcpClient.start` with the pool's agent options). */
export function startAgent(options: SpawnSessionOptions): Promise<AcpClient> {
  const { agent, env, logger } = options;
  return AcpClient.start({ agent, env, logger, ...options.client });
}
