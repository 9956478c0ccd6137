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
  /**
   * `[rate_limits]`. Default: telegram's (the platform every benchmark event names) turned off —
   * these benchmarks measure the broker, and Telegram's 1 message a second per chat would measure
   * the limit instead (the `shaping` benchmark measures what limits cost, with its own).
   */
  readonly rateLimits?: RateLimitsInput;
  /** `[gateway]` keys (default: allow every user and channel). */
  readonly gateway?: { readonly url: string } & Record<string, unknown>;
}

export interface AgentBroker {
  readonly broker: Broker;
  stop(): Promise<void>;
}

const unlimited: RateLimitsInput = { telegram: { enabled: false } };

/**
 * A broker whose turns run on the default turn handler — the ACP session pool, with the stamp
 * agent as the agent process — in the `[delivery]` mode given; role "all" on the embedded bus, or
 * over NATS. Status reactions are off and, unless `rateLimits` says otherwise, so are telegram's
 * send limits: what arrives at the gateway is the agent's messages, as fast as the broker sends them.
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
      rate_limits: options.rateLimits ?? unlimited,
      // Status reactions are frames of their own at the gateway: the benchmarks count and time bubbles.
      reactions: { enabled: false },
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
