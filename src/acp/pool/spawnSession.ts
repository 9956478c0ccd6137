import { resolve as resolvePath } from "node:path";
import type { Logger } from "../../log/logger.js";
import type { AgentConfig, Config } from "../../config/index.js";
import type { SessionStore } from "../../state/sessionStore.js";
import { AcpClient, type AcpClientOptions } from "../client.js";
import type { McpOffer, McpOffers } from "../mcpServers.js";
import { openSession } from "./openSession.js";

/** What a session on a fresh agent needs (the pool's options). */
export interface SpawnSessionOptions {
  readonly agent: AgentConfig;
  readonly pool: Pick<Config["pool"], "default_config_options">;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  readonly store: SessionStore;
  readonly client?: Pick<AcpClientOptions, "timeouts" | "killAfterMs" | "clientVersion" | "onAgentExit" | "redact">;
  readonly mcp?: McpOffers;
}

/** A key's session on its freshly started agent, as `openSession` opened it. */
export interface SpawnedSession {
  readonly client: AcpClient;
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
  /** Told of a failed start's agent close before it is awaited. */
  readonly closing: (closed: Promise<void>) => void;
}

/**
 * Starts an agent process for `key`, offers it the session's MCP servers and opens the key's
 * session there (`openSession`: resumed, or new), then hands it to `adopt`. When any of it fails,
 * the MCP servers are released, the agent is closed and the error is thrown once it is gone.
 */
export async function spawnSession<T>(key: string, options: SpawnSessionOptions, { mustResume, adopt, closing }: SpawnHooks<T>): Promise<T> {
  let client: AcpClient | undefined;
  let offer: McpOffer | undefined;
  try {
    const { agent, env, logger, store } = options;
    client = await AcpClient.start({ agent, env, logger, ...options.client });
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
    return adopt({ client, sessionId, offer, resumed, hadSaved });
  } catch (err) {
    offer?.release();
    const closed = client?.close() ?? Promise.resolve();
    closing(closed);
    await closed;
    throw err;
  }
}
