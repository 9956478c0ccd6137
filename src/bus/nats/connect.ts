import { readFileSync } from "node:fs";
import { credsAuthenticator, type Authenticator, type NodeConnectionOptions } from "@nats-io/transport-node";
import { busCredentialProblems, busUrlHasUserinfo, type Config } from "../../config/index.js";
import { BusSetupError } from "../errors.js";

type BusConfig = Config["bus"];

/** Wait between reconnect attempts (plus the client's jitter); attempts never stop. */
export const RECONNECT_TIME_WAIT_MS = 1_000;
/** A silent server is noticed after about `PING_INTERVAL_MS × MAX_PINGS_OUT`, then the client reconnects. */
export const PING_INTERVAL_MS = 20_000;
const MAX_PINGS_OUT = 3;
const DEFAULT_CONNECTION_NAME = "turnstream";

/**
 * The `connect()` options for `[bus]`. `tls://` requires TLS; credentials come from `token`,
 * `user` + `password`, a `.creds` file, or the URL's user info, exactly one of them. Throws
 * `BusSetupError` for an unusable combination; its message names keys and paths, never a secret.
 */
export function natsConnectOptions(bus: BusConfig, name = DEFAULT_CONNECTION_NAME): NodeConnectionOptions {
  if (bus.url === undefined) throw new BusSetupError("bus.url is not set: the NATS bus needs a nats:// or tls:// URL");
  const url = parseBusUrl(bus.url);
  return {
    servers: url.host,
    name,
    ...(url.protocol === "tls:" ? { tls: {} } : {}),
    ...credentials(bus, url),
    maxReconnectAttempts: -1,
    // No stack trace captured per request: at thousands of requests a second it was the largest
    // cost in the client (profiled: ~14% of CPU); our errors carry the subject instead.
    noAsyncTraces: true,
    reconnectTimeWait: RECONNECT_TIME_WAIT_MS,
    pingInterval: PING_INTERVAL_MS,
    maxPingOut: MAX_PINGS_OUT,
  };
}

/** `bus.url` without user info: what errors and logs may show. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return "<invalid bus.url>";
  }
}

function parseBusUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new BusSetupError(`bus.url is not a URL; expected nats://host:port or tls://host:port`, { cause: err });
  }
  if ((parsed.protocol !== "nats:" && parsed.protocol !== "tls:") || parsed.host === "") {
    throw new BusSetupError(`bus.url ${displayUrl(url)} is not allowed; expected nats://host:port or tls://host:port`);
  }
  return parsed;
}

type Credentials = Pick<NodeConnectionOptions, "token" | "user" | "pass" | "authenticator">;

function credentials(bus: BusConfig, url: URL): Credentials {
  // The same checks resolveConfig runs, for a `[bus]` that did not come through it.
  const [problem] = busCredentialProblems(bus);
  if (problem !== undefined) throw new BusSetupError(problem.message);
  if (bus.token !== undefined) return { token: bus.token };
  if (bus.user !== undefined && bus.password !== undefined) return { user: bus.user, pass: bus.password };
  if (bus.creds !== undefined) return { authenticator: credsFile(bus.creds) };
  if (busUrlHasUserinfo(bus.url)) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    // nats://TOKEN@host is token auth, as in the NATS CLI and server docs.
    return password === "" ? { token: user } : { user, pass: password };
  }
  return {};
}

/**
 * Reads the `.creds` file now, so a missing or malformed file stops start-up, and again on every
 * (re)connect, so rotated credentials are picked up; a read that fails later keeps the last good copy.
 */
function credsFile(path: string): Authenticator {
  let lastGood = readCreds(path);
  const authenticator = credsAuthenticator(() => {
    try {
      lastGood = readFileSync(path);
    } catch {
      // Keep the last good copy: a reconnect must not fail because the file is being rewritten.
    }
    return lastGood;
  });
  try {
    authenticator("validate");
  } catch {
    // No cause: the parser saw the file's content, and a logged cause must never quote it.
    throw new BusSetupError(`bus.creds: ${path} is not a NATS credentials file (a user JWT and nkey seed)`);
  }
  return authenticator;
}

function readCreds(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new BusSetupError(`bus.creds: cannot read ${path} (${code})`, { cause: err });
  }
}
