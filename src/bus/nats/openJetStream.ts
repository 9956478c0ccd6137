import { JetStreamApiError, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { BusSetupError } from "../errors.js";

/** The oldest nats-server with the `js.consumers` API the NATS bus consumes through. */
export const MIN_SERVER_VERSION = "2.9.4";
/** How long a JetStream API call or publish may wait for the server's answer. */
export const JETSTREAM_TIMEOUT_MS = 5_000;
/** JetStream's "not enabled for account" API error. */
const NOT_ENABLED_FOR_ACCOUNT = 10039;

/**
 * JetStream handles on `nc`, after checking the server can serve the bus: recent enough, and with
 * JetStream enabled for this account. `url` (without credentials) names the server in errors.
 */
export async function openJetStream(nc: NatsConnection, url: string): Promise<{ js: JetStreamClient; jsm: JetStreamManager }> {
  const version = nc.info?.version ?? "unknown";
  if (!versionAtLeast(version, MIN_SERVER_VERSION)) {
    throw new BusSetupError(`nats-server ${version} at ${url} is too old: the NATS bus needs ${MIN_SERVER_VERSION} or later`);
  }
  let jsm: JetStreamManager;
  try {
    jsm = await jetstreamManager(nc, { timeout: JETSTREAM_TIMEOUT_MS });
  } catch (err) {
    if (jetStreamDisabled(err)) {
      throw new BusSetupError(`JetStream is not enabled on ${url}: start nats-server with -js (or enable JetStream for this account)`, {
        cause: err,
      });
    }
    throw new BusSetupError(`cannot reach JetStream on ${url}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return { js: jsm.jetstream(), jsm };
}

/** Whether dotted `version` (e.g. "2.9.10", "2.10.0-beta.1") is `min` or later; a pre-release counts as its release. */
export function versionAtLeast(version: string, min: string): boolean {
  const parse = (value: string) => (/^v?(\d+)\.(\d+)\.(\d+)/.exec(value) ?? []).slice(1, 4).map(Number);
  const have = parse(version);
  const want = parse(min);
  if (have.length !== 3) return false;
  for (let index = 0; index < 3; index += 1) {
    const difference = (have[index] ?? 0) - (want[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

function jetStreamDisabled(err: unknown): boolean {
  if (err instanceof JetStreamApiError) return err.code === NOT_ENABLED_FOR_ACCOUNT;
  // The client's own check answers with `JetStreamNotEnabled`, a class it does not export.
  return err instanceof Error && err.name === "JetStreamNotEnabled";
}
