import { firstValueFrom } from "rxjs";
import type { Logger } from "../../log/logger.js";
import { BrokerFailureError } from "../../failure/brokerFailure.js";
import type { SessionStore } from "../../state/sessionStore.js";
import { PreloadError } from "../errors.js";

export interface PreloadOptions {
  readonly maxSessions: number;
  readonly logger: Logger;
  /** Resumes one key's saved session, or fails with a `PreloadError` (`SessionPool.restore`). */
  readonly restore: (key: string) => Promise<void>;
}

/**
 * `[pool] preload_persisted_sessions = true`, as upstream: before the broker takes events, every
 * saved session is resumed on its own agent, one after another and without a prompt. Start-up
 * fails with a `PreloadError` when the ids cannot be read, there are more than `max_sessions`, or
 * one cannot be restored. Resolves with how many were.
 */
export async function preloadSessions(store: SessionStore, { maxSessions, logger, restore }: PreloadOptions): Promise<number> {
  if (store.keys === undefined) throw new PreloadError("store_unreadable", "this session store cannot list its sessions");
  let keys: readonly string[];
  try {
    keys = await firstValueFrom(store.keys());
  } catch (err) {
    throw new PreloadError("store_unreadable", `the saved session ids could not be read (${whereOf(err)})`, { cause: err });
  }
  if (keys.length > maxSessions) {
    throw new PreloadError("too_many_sessions", `${keys.length} are saved and [pool] max_sessions = ${maxSessions}`);
  }
  logger.info({ sessions: keys.length }, "preloading saved sessions");
  for (const key of keys) await restore(key);
  logger.info({ preloaded: keys.length }, "saved sessions preloaded");
  return keys.length;
}

/** For the operator: the file and errno of a session file that failed, else the error's message. */
function whereOf(err: unknown): string {
  if (err instanceof BrokerFailureError && err.path !== undefined) {
    const cause = err.cause instanceof Error ? err.cause.message : undefined;
    return `${err.path}: ${err.errno ?? cause ?? err.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}
