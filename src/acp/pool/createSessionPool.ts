import { homedir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../log/logger.js";
import { chatRedaction } from "../../log/secretScrubber.js";
import { secretValues, type Config } from "../../config/index.js";
import type { Redact } from "../../../operators/delivery/text/redactSecrets.js";
import { reportingFileErrors } from "../../state/sessionFileError.js";
import { FileSessionStore, type SessionStore } from "../../state/sessionStore.js";
import type { AgentExitCause } from "../../metrics/instruments.js";
import type { McpOffers } from "../mcpServers.js";
import { SessionPool } from "./pool.js";

/**
 * The session pool a broker runs: `[agent]` and `[pool]` from the config, session ids in `store`
 * (default `<state_dir>/sessions.json`; shared KV when workers scale out). Tool titles and error
 * messages from its agents are masked by `redact` (default: `chatRedaction` of the config's secrets).
 */
export function createSessionPool(
  config: Config,
  options: { env: NodeJS.ProcessEnv; logger: Logger; clientVersion?: string; store?: SessionStore; mcp?: McpOffers; onAgentExit?: (cause: AgentExitCause) => void; redact?: Redact },
): SessionPool {
  const path = join(stateDirOf(config, options.env), "sessions.json");
  const onLegacyKeys = (legacyKeys: number) =>
    options.logger.info({ reason: "legacy_session_keys", legacyKeys, path }, "old-format session keys wait to be claimed");
  return new SessionPool({
    agent: config.agent,
    pool: config.pool,
    env: options.env,
    logger: options.logger,
    // A file that fails reaches the user as `session_store_unavailable`, never as its path.
    store: options.store ?? reportingFileErrors(new FileSessionStore(path, { onLegacyKeys }), path),
    client: {
      redact: options.redact ?? chatRedaction(secretValues(config)),
      ...(options.clientVersion === undefined ? {} : { clientVersion: options.clientVersion }),
      ...(options.onAgentExit === undefined ? {} : { onAgentExit: options.onAgentExit }),
    },
    ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
  });
}

/** `[pool] state_dir`, else `$HOME/.turnstream`: where the default session store keeps `sessions.json`. */
export function stateDirOf(config: Config, env: NodeJS.ProcessEnv): string {
  return config.pool.state_dir ?? join(env.HOME ?? homedir(), ".turnstream");
}
