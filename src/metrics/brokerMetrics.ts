import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { Config } from "../config/index.js";
import {
  AGENT_EXIT_CAUSES,
  EVENT_OUTCOMES,
  MESSAGE_KINDS,
  SHAPING_BUCKETS,
  TURN_OUTCOMES,
  type AgentExitCause,
  type EventOutcome,
  type Instruments,
  type MessageKind,
  type ShapingBucket,
  type TriageDecisionLabel,
  type TriageReasonLabel,
  type TurnOutcome,
} from "./instruments.js";
import { SEND_FAILURE_REASONS, sendFailureReason, type SendFailureReason } from "./metricLabels.js";
import { CounterSeries, HistogramSeries } from "./series.js";

export interface BrokerMetricsOptions {
  readonly role: "all" | "edge" | "worker";
  /** `[delivery] mode`: the `mode` label of the turn series. */
  readonly mode: Config["delivery"]["mode"];
  /** `[bus] partitions`. */
  readonly partitions: number;
  readonly version: string;
  /** Whether this process holds a gateway connection (`turnstream_gateway_connected` exists only then). */
  readonly gateway: boolean;
  /** The platforms this edge speaks to natively (`turnstream_platform_connected`, one series each); default none. */
  readonly platforms?: readonly string[];
  /** prom-client's process metrics (`process_*`, `nodejs_*`); default true. */
  readonly processMetrics?: boolean;
}

/** What the gauges read at scrape time; a reader not given leaves its gauge at 0. */
export interface GaugeReaders {
  /** Live ACP sessions in this worker's pool. */
  readonly sessions?: () => number;
  /** Agent processes in this worker's pool (fewer than its sessions under `[pool] sessions_per_agent` > 1). */
  readonly agentProcesses?: () => number;
  /** Turns waiting for a session because every one is busy (`[pool] max_sessions`). */
  readonly waitingForSession?: () => number;
  /** Whether this edge's gateway socket is open. */
  readonly gatewayConnected?: () => boolean;
  /** Partitions this worker consumes now. */
  readonly partitionsOwned?: () => number;
  /** Whether this edge's connection to a platform it speaks to natively works now. */
  readonly platformConnected?: (platform: string) => boolean;
}

/** Seconds; from a fast ack to a slow agent. */
const ACK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TURN_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];
const FIRST_MESSAGE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120];
const GAP_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];

type TriageKey = "wake:none" | `suppressed:${Exclude<TriageReasonLabel, "none">}`;
const TRIAGE_KEYS: readonly TriageKey[] = ["wake:none", "suppressed:duplicate", "suppressed:quiet_hours", "suppressed:cooldown", "suppressed:daily_cap"];

/**
 * turnstream's Prometheus metrics on a registry of their own (several brokers in one process do
 * not collide), as `docs/operations.md` lists them, with prom-client's process metrics. Every
 * labelled series exists from the start, at 0, so `rate()` and alerts see it before its first
 * event. Counters and histograms are `CounterSeries` / `HistogramSeries`: a call on the hot path
 * is an addition or two, no label hashing and no allocation. Gauges are read when scraped.
 */
export class BrokerMetrics implements Instruments {
  readonly registry = new Registry();
  readonly #events: CounterSeries<EventOutcome>;
  readonly #triage: CounterSeries<TriageKey>;
  readonly #turns: CounterSeries<TurnOutcome>;
  readonly #turnDuration: HistogramSeries;
  readonly #firstMessage: HistogramSeries;
  readonly #sent: CounterSeries<MessageKind>;
  readonly #failures: CounterSeries<SendFailureReason>;
  readonly #retries: CounterSeries<"all">;
  readonly #ackLatency: HistogramSeries;
  readonly #bubbleGap: HistogramSeries;
  readonly #shaped: CounterSeries<ShapingBucket>;
  readonly #shapingWait: HistogramSeries;
  readonly #agentExits: CounterSeries<AgentExitCause>;
  readonly #recovered: CounterSeries<"all">;
  #queued = 0;
  #readers: GaugeReaders = {};

  constructor(options: BrokerMetricsOptions) {
    const registry = this.registry;
    const registers = [registry];
    // Worker series are exposed only where turns run (roles all and worker), the gateway's only on edges.
    const worker = options.role === "edge" ? undefined : registry;
    const edge = options.gateway ? registers : [];
    if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
    new Gauge({ name: "turnstream_build_info", help: "Always 1; the labels say which turnstream runs in which role.", labelNames: ["version", "role"], registers })
      .labels(options.version, options.role)
      .set(1);
    new Gauge({ name: "turnstream_partitions", help: "Partitions of the turn stream ([bus] partitions).", registers }).set(options.partitions);

    this.#events = new CounterSeries("turnstream_events_total", "Gateway events by where they ended up; each counts once, where its fate was decided.", EVENT_OUTCOMES, (outcome) => ({ outcome }), registry);
    this.#triage = new CounterSeries("turnstream_triage_decisions_total", "Triage verdicts on proactive events.", TRIAGE_KEYS, triageLabels, worker);
    const { mode } = options;
    this.#turns = new CounterSeries("turnstream_turns_total", "Turns settled, by delivery mode and outcome.", TURN_OUTCOMES, (outcome) => ({ mode, outcome }), worker);
    this.#turnDuration = new HistogramSeries("turnstream_turn_duration_seconds", "How long a turn took, delivery included.", TURN_BUCKETS, { mode }, worker);
    this.#firstMessage = new HistogramSeries("turnstream_first_message_seconds", "From an event reaching the worker to its turn's first message acked.", FIRST_MESSAGE_BUCKETS, {}, worker);
    this.#sent = new CounterSeries("turnstream_messages_sent_total", "Sends the gateway took, by kind: acked, or written where no ack is awaited (reactions, legacy gateways).", MESSAGE_KINDS, (kind) => ({ kind }), worker);
    this.#failures = new CounterSeries("turnstream_send_failures_total", "Sends that failed, by reason.", SEND_FAILURE_REASONS, (reason) => ({ reason }), worker);
    this.#retries = new CounterSeries("turnstream_send_retries_total", "Sends the gateway refused for now (a rate limit) and that were asked again after its wait.", ["all"], () => ({}), worker);
    this.#ackLatency = new HistogramSeries("turnstream_ack_latency_seconds", "From asking for a message, edit or delete to the gateway's ack (reactions are not awaited).", ACK_BUCKETS, {}, worker);
    this.#bubbleGap = new HistogramSeries("turnstream_bubble_gap_seconds", "Between two consecutive new messages of one turn (ack to ack).", GAP_BUCKETS, {}, worker);
    this.#shaped = new CounterSeries("turnstream_sends_shaped_total", "Sends that waited for a rate limit's token ([rate_limits]), by the bucket waited for last.", SHAPING_BUCKETS, (bucket) => ({ bucket }), worker);
    this.#shapingWait = new HistogramSeries("turnstream_send_shaping_seconds", "How long a send that waited for a rate limit's token waited.", GAP_BUCKETS, {}, worker);
    this.#agentExits = new CounterSeries("turnstream_agent_exits_total", "Agent processes that ended, by cause.", AGENT_EXIT_CAUSES, (cause) => ({ cause }), worker);
    this.#recovered = new CounterSeries("turnstream_recovered_turns_total", "Redelivered events whose interrupted turn ran again.", ["all"], () => ({}), worker);

    const read = (gauge: Gauge, value: () => number) => gauge.set(value());
    const readers = () => this.#readers;
    const workerRegisters = worker === undefined ? [] : registers;
    const queued = () => this.#queued;
    gauge("turnstream_queued_events", "Events waiting behind a busy session on this worker.", workerRegisters, queued, read);
    gauge("turnstream_sessions", "Live ACP sessions in this worker's pool.", workerRegisters, () => readers().sessions?.() ?? 0, read);
    gauge("turnstream_agent_processes", "Agent processes in this worker's pool: one per session, or fewer under [pool] sessions_per_agent.", workerRegisters, () => readers().agentProcesses?.() ?? 0, read);
    gauge("turnstream_session_waits", "Turns waiting for an ACP session because every one is busy ([pool] max_sessions).", workerRegisters, () => readers().waitingForSession?.() ?? 0, read);
    gauge("turnstream_partitions_owned", "Partitions this worker consumes now.", workerRegisters, () => readers().partitionsOwned?.() ?? 0, read);
    gauge("turnstream_gateway_connected", "1 while this edge's gateway WebSocket is open, else 0.", edge, () => (readers().gatewayConnected?.() === true ? 1 : 0), read);
    // One series per configured native platform, and only on edges: the label set is the config's.
    const platforms = options.role === "worker" ? [] : (options.platforms ?? []);
    if (platforms.length > 0) {
      new Gauge({
        name: "turnstream_platform_connected",
        help: "1 while this edge's own connection to the platform works (Telegram: polling or the webhook set up), else 0.",
        labelNames: ["platform"],
        registers,
        collect() {
          for (const platform of platforms) this.labels(platform).set(readers().platformConnected?.(platform) === true ? 1 : 0);
        },
      });
    }
  }

  /** Where the gauges read from; given once the parts they read exist. */
  read(readers: GaugeReaders): void {
    this.#readers = { ...this.#readers, ...readers };
  }

  events(outcome: EventOutcome, count = 1): void {
    this.#events.inc(outcome, count);
  }

  triageDecision(decision: TriageDecisionLabel, reason: TriageReasonLabel): void {
    this.#triage.inc(`${decision}:${reason}` as TriageKey);
  }

  turnSettled(outcome: TurnOutcome, seconds: number): void {
    this.#turns.inc(outcome);
    this.#turnDuration.observe(seconds);
  }

  firstMessage(seconds: number): void {
    this.#firstMessage.observe(seconds);
  }

  messageSent(kind: MessageKind, ackSeconds: number): void {
    this.#sent.inc(kind);
    // Reactions are written without waiting for an ack: their latency would only dilute the percentiles.
    if (kind !== "reaction") this.#ackLatency.observe(ackSeconds);
  }

  sendFailed(code: string): void {
    this.#failures.inc(sendFailureReason(code));
  }

  sendRetried(): void {
    this.#retries.inc("all");
  }

  bubbleGap(seconds: number): void {
    this.#bubbleGap.observe(seconds);
  }

  sendShaped(bucket: ShapingBucket, seconds: number): void {
    this.#shaped.inc(bucket);
    this.#shapingWait.observe(seconds);
  }

  agentExited(cause: AgentExitCause): void {
    this.#agentExits.inc(cause);
  }

  turnRecovered(): void {
    this.#recovered.inc("all");
  }

  queued(delta: number): void {
    this.#queued += delta;
  }

  /** The Prometheus text exposition of every metric. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

function triageLabels(key: TriageKey): Record<string, string> {
  const [decision, reason] = key.split(":") as [string, string];
  return { decision, reason };
}

/** A gauge set from `value()` each time it is scraped. */
function gauge(name: string, help: string, registers: Registry[], value: () => number, read: (gauge: Gauge, value: () => number) => void): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      read(this, value);
    },
  });
}
