import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectBroker, createLogger, type Broker } from "../../src/index.js";
import type { RateLimitsInput } from "../../src/config/sections/rateLimits.js";

/** The compiled stamp agent (bench/agents/stampAgent.ts), next to this file's directory in dist-bench. */
export const stampAgentPath = fileURLToPath(new URL("../agents/stampAgent.js", import.meta.url));

export interface AgentBrokerOptions {
  readonly gatewayUrl: string;
  /** The gateway's token: `[gateway] token`. */
  readonly gatewayToken: string;
  /** `[delivery]` keys. */
  readonly delivery: Record<string, unknown>;
  readonly nats?: { readonly url: string; readonly prefix: string };
  /** `[pool] max_sessions` (default 16). */
  readonly maxSessions?: number;
  /** `[rate_limits]` (default: the built-in defaults). */
  readonly rateLimits?: RateLimitsInput;
  /** `[gateway]` keys (default: allow every user and channel). */
  readonly gateway?: { readonly url: string } & Record<string, unknown>;
}

export interface AgentBroker {
  readonly broker: Broker;
  stop(): Promise<void>;
}

/**
 * A broker whose turns run on the default turn handler — the ACP session pool, with the stamp
 * agent as the agent process — in the `[delivery]` mode given; role "all" on the embedded bus, or
 * over NATS.
 */
export async function startAgentBroker(options: AgentBrokerOptions): Promise<AgentBroker> {
  const dir = mkdtempSync(join(tmpdir(), "turnstream-bench-"));
  const broker = await connectBroker({
    config: {
      gateway: options.gateway ?? { url: options.gatewayUrl, token: options.gatewayToken, allow_all_users: true, allow_all_channels: true },
      agent: { command: process.execPath, args: [stampAgentPath], working_dir: dir },
      pool: { state_dir: dir, max_sessions: options.maxSessions ?? 16, shutdown_grace_secs: 1 },
      delivery: options.delivery,
      queue: { mode: "followup", debounce_ms: 0 },
      ...(options.rateLimits === undefined ? {} : { rate_limits: options.rateLimits }),
      ...(options.nats === undefined ? {} : { bus: { url: options.nats.url, prefix: options.nats.prefix, lease_ttl_secs: 3 } }),
    },
    logger: createLogger({ level: "silent" }),
    role: "all",
  });
  await broker.start();
  return {
    broker,
    stop: async () => {
      await broker.stop({ graceMs: 1_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
