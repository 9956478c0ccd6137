import { firstValueFrom, lastValueFrom } from "rxjs";
import type { Logger } from "../../log/logger.js";
import type { SessionStore } from "../../state/sessionStore.js";
import type { AcpClient } from "../client.js";
import { AcpTimeoutError, AgentExitedError, PreloadError } from "../errors.js";
import type { McpServerEntry } from "../mcpServers.js";

export interface OpenSessionOptions {
  readonly key: string;
  readonly cwd: string;
  readonly servers: readonly McpServerEntry[];
  readonly store: SessionStore;
  /** `[pool] default_config_options`, applied to a new session. */
  readonly defaultOptions: Readonly<Record<string, string>>;
  readonly logger: Logger;
  /** `restore`: resume the saved session or fail with a `PreloadError`, never start a new one. */
  readonly mustResume: boolean;
}

/** The ACP session a key gets on a started agent, and what it had saved before. */
export interface OpenedSession {
  readonly sessionId: string;
  readonly resumed: boolean;
  /** The key had a saved session id (resumed or not). */
  readonly hadSaved: boolean;
}

/**
 * A key's session on a freshly started agent: its saved session resumed with `session/load` where
 * the agent can load sessions, else a new one (its default config options applied and its id
 * saved). A load the agent refuses starts a new session; a timeout or an exit propagates, keeping
 * the saved id. Under `mustResume` only the saved session will do.
 */
export async function openSession(client: AcpClient, options: OpenSessionOptions): Promise<OpenedSession> {
  const { key, cwd, servers, store, logger } = options;
  const saved = await firstValueFrom(store.get(key));
  const hadSaved = saved !== undefined;
  if (options.mustResume) return { sessionId: await mustResume(client, saved, options), resumed: true, hadSaved };
  if (saved !== undefined && client.supportsLoadSession && (await resume(client, saved, options))) return { sessionId: saved, resumed: true, hadSaved };
  const { sessionId } = await client.newSession(cwd, servers);
  for (const [configId, value] of Object.entries(options.defaultOptions)) {
    try {
      await client.setConfigOption(sessionId, configId, value);
    } catch (err) {
      logger.warn({ reason: "config_option_failed", configId, err }, "default config option not applied");
    }
  }
  await lastValueFrom(store.set(key, sessionId), { defaultValue: undefined });
  logger.info({ sessionKey: key, sessionId }, "session created");
  return { sessionId, resumed: false, hadSaved };
}

/** `session/load`; false when the agent no longer knows the session. A transient failure propagates, keeping the id. */
async function resume(client: AcpClient, sessionId: string, { key, cwd, servers, logger }: OpenSessionOptions): Promise<boolean> {
  try {
    await client.loadSession(sessionId, cwd, servers);
    logger.info({ sessionKey: key, sessionId }, "session resumed");
    return true;
  } catch (err) {
    if (err instanceof AcpTimeoutError || err instanceof AgentExitedError) throw err;
    logger.warn({ sessionKey: key, sessionId, reason: "load_failed", err }, "session load failed; starting a new session");
    return false;
  }
}

/** `session/load` for `restore`: the saved id, or a `PreloadError` saying why it cannot be had. */
async function mustResume(client: AcpClient, saved: string | undefined, { key, cwd, servers, logger }: OpenSessionOptions): Promise<string> {
  if (!client.supportsLoadSession) throw new PreloadError("load_unsupported", `the agent (${client.agentName}) does not support session/load`);
  if (saved === undefined) throw new PreloadError("load_failed", `the saved session of ${key} is gone`);
  try {
    await client.loadSession(saved, cwd, servers);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    // The agent's message may be anything: one bounded line of it.
    throw new PreloadError("load_failed", `session/load of ${key} failed: ${why.replace(/\s+/g, " ").slice(0, 200)}`, { cause: err });
  }
  logger.info({ sessionKey: key, sessionId: saved }, "session resumed");
  return saved;
}
