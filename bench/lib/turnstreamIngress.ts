import { EMPTY, filter, ignoreElements, take, type Observable } from "rxjs";
import { connectBroker, createLogger, type Broker, type Role, type TurnHandler } from "../../src/index.js";
import { ingressGatewayConfig } from "./gatewayFrames.js";
import { SettleCounter } from "./settleCounter.js";

/** `[triage]` as a deployment that lets reminders through would set it (the config's defaults, enabled). */
export const TRIAGE_CONFIG = { enabled: true, timezone: "UTC", cooldown_secs: 900, daily_cap: 8, dedupe_window_secs: 3600 } as const;

export interface IngressSubject {
  readonly settled: SettleCounter;
  readonly broker?: Broker;
  stop(): Promise<void>;
}

export interface TurnstreamIngressOptions {
  /** The gateway to connect to (edge and all roles). */
  readonly gatewayUrl?: string;
  /** The gateway's token (with gatewayUrl). */
  readonly gatewayToken?: string;
  /**
   * Absent: the embedded bus. `leaseTtlSecs` defaults to 3, so the scale benchmark's leases settle
   * quickly; one worker that never hands a partition over can run on the config's default.
   */
  readonly nats?: { readonly url: string; readonly prefix: string; readonly leaseTtlSecs?: number };
  /** Default "all". */
  readonly role?: Role;
  /** While it is false, turns wait (the scale benchmark fills the stream first); absent: turns never wait. */
  readonly gate?: Observable<boolean>;
  /** `[metrics] enabled` on a free port: what the instruments cost (the `metricsRatio` figure). */
  readonly metrics?: boolean;
  /**
   * `[pool] state_dir`: on the embedded bus, the turn queue and the delivery ledger are journaled
   * there (the `journalRatio` figure). Absent: a broker in code with its own turn handler keeps them in memory.
   */
  readonly stateDir?: string;
}

/**
 * turnstream as the ingress benchmarks run it: its own gateway connector and edge (parse, skip
 * rules, trust gate, inbound debounce at 0 ms), the turn stream (embedded bus, or JetStream), the
 * worker's per-session lanes in `followup` mode (queue cap raised to 1,000 so no burst is
 * dropped) with the delivery ledger on NATS (none on the embedded bus), `[triage]` of proactive
 * events in the session lane, on the in-memory store (embedded) or the shared KV bucket (NATS) —
 * and an instant in-process agent: a turn handler that completes at once. Events are counted as
 * the broker reports them settled (acked).
 */
export async function startTurnstreamIngress(options: TurnstreamIngressOptions): Promise<IngressSubject> {
  const role = options.role ?? "all";
  const settled = new SettleCounter();
  const gate = options.gate;
  const instantAgent: TurnHandler = gate === undefined ? () => EMPTY : () => gate.pipe(filter(Boolean), take(1), ignoreElements());
  const broker: Broker = await connectBroker({
    config: {
      ...(options.gatewayUrl === undefined ? {} : { gateway: ingressGatewayConfig(options.gatewayUrl, options.gatewayToken ?? "") }),
      queue: { mode: "followup", debounce_ms: 0, cap: 1_000 },
      triage: TRIAGE_CONFIG,
      inbound: { debounce_ms: 0 },
      ...(options.metrics === true ? { metrics: { enabled: true, listen: "127.0.0.1:0" } } : {}),
      ...(options.stateDir === undefined ? {} : { pool: { state_dir: options.stateDir } }),
      ...(options.nats === undefined ? {} : { bus: { url: options.nats.url, prefix: options.nats.prefix, lease_ttl_secs: options.nats.leaseTtlSecs ?? 3 } }),
    },
    logger: createLogger({ level: "silent" }),
    role,
    ...(role === "edge" ? {} : { turnHandler: instantAgent }),
  });
  const counting = broker.settledTurns.subscribe(() => settled.tick());
  await broker.start();
  return {
    settled,
    broker,
    stop: async () => {
      await broker.stop({ graceMs: 0 });
      counting.unsubscribe();
    },
  };
}
