import { catchError, type Observable, throwError } from "rxjs";
import { BrokerFailureError, errnoOf } from "../failure/brokerFailure.js";
import type { SessionStore } from "./sessionStore.js";

/**
 * `<state_dir>/sessions.json` could not be read or written (not a directory, not writable, not a
 * JSON object of ids). The message is the user-facing phrase (`session_store_unavailable`); the
 * path, errno and operation are for the log. A local file that fails is not a passing outage: it
 * is reported, never retried in place like NATS KV (see `isStateOutage`).
 */
export class SessionFileError extends BrokerFailureError {
  override readonly name = "SessionFileError";
  constructor(
    readonly operation: "get" | "set" | "delete" | "keys",
    path: string,
    cause: unknown,
  ) {
    const errno = errnoOf(cause);
    super("session_store_unavailable", { configKey: "pool.state_dir", path, ...(errno === undefined ? {} : { errno }) }, { cause });
  }
}

/** `store` (the file store at `path`) with each failure reported as a `SessionFileError`. */
export function reportingFileErrors(store: SessionStore, path: string): SessionStore {
  const guarded =
    <A extends unknown[], R>(operation: SessionFileError["operation"], work: (...args: A) => Observable<R>) =>
    (...args: A): Observable<R> =>
      work(...args).pipe(catchError((err: unknown) => throwError(() => new SessionFileError(operation, path, err))));
  const { keys } = store;
  return {
    get: guarded("get", (key: string) => store.get(key)),
    set: guarded("set", (key: string, sessionId: string) => store.set(key, sessionId)),
    delete: guarded("delete", (key: string) => store.delete(key)),
    ...(keys === undefined ? {} : { keys: guarded("keys", () => keys.call(store)) }),
  };
}
