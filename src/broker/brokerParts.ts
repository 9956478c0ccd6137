import type { Observable } from "rxjs";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { Bus } from "../bus/bus.js";
import type { Config } from "../config/index.js";
import type { PlatformPort, SoleReceiver } from "../platforms/platformPort.js";
import type { Logger } from "../log/logger.js";
import type { BrokerMetrics } from "../metrics/brokerMetrics.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import type { DeliveryLedger } from "../state/deliveryLedger.js";
import type { TurnHandler, TurnTriage } from "../turn/turn.js";
import type { RateBuckets } from "../../operators/delivery/flow/rateBuckets.js";
import type { GroupHistory } from "../turn/groupHistory.js";

export type Role = "all" | "edge" | "worker";

/** One event accepted onto the turn stream. */
export interface QueuedEvent {
  readonly event_id: string;
  readonly partition: number;
  readonly seq: number;
  /** The same `platform:event_id` was queued before, within the bus's duplicate window. */
  readonly duplicate: boolean;
}

export interface StopResult {
  /** Turns that were running when the stop began and finished within the grace period. */
  readonly finished: number;
  /** Turns cancelled because the grace period ran out; their events stay unacked. */
  readonly abandoned: number;
}

export interface BrokerParts {
  readonly config: Config;
  readonly bus: Bus;
  /** Whether `stop()` closes the bus (true when the broker created it). */
  readonly ownsBus: boolean;
  readonly logger: Logger;
  readonly pipeline: Pipeline;
  readonly role: Role;
  readonly turnHandler: TurnHandler | undefined;
  /** The platform ports this process holds (edge role): the gateway's if `[gateway]` is configured, and one per native platform. */
  readonly ports?: readonly PlatformPort[];
  /**
   * On a shared bus, how an edge holds a port's `receiver` (a connection one process per bot may
   * hold): the port starts standing by and this starts receiving on one edge at a time, through a
   * lease (`ReceiverLease`); the edge stops it first when the broker stops. Absent: every port
   * receives at once (the embedded bus: one process).
   */
  readonly holdReceiver?: (receiver: SoleReceiver) => ReceiverHold;
  /** The partitions this worker consumes, as they change (default: every partition, for good). */
  readonly ownership?: Observable<ReadonlySet<number>>;
  /** Per event: started → messages delivered → complete, written before the ack. Absent: no ledger. */
  readonly ledger?: DeliveryLedger;
  /** The per-bot rate buckets a worker shapes its sends by (`[rate_limits]`); absent: this process's own. */
  readonly rates?: RateBuckets;
  /** `[triage]` enabled: proactive events are judged in their session's lane, before any handler sees them. */
  readonly triage?: TurnTriage;
  /** `[inbound] history_limit` > 0: group history, kept by the worker, packed by the turn handler. */
  readonly history?: GroupHistory;
  /** `[metrics]` enabled: what the broker counts, served on `[metrics] listen` with `/healthz` and `/readyz`. */
  readonly metrics?: BrokerMetrics;
  /**
   * How many partitions this worker should hold now (its even share of the workers present), or
   * undefined until it has read the lease table. Absent: all of them (the embedded bus).
   */
  readonly partitionShare?: () => number | undefined;
  /**
   * Events of the broker's own (edge role): `[cron]`'s firings, `[webhooks]`' deliveries. Each is
   * started once the broker runs, with `submit`, and closed first when it stops.
   */
  readonly sources?: readonly EventSource[];
  /** Runs first when the broker starts (acquiring partition leases). */
  readonly onStart?: () => Promise<void>;
  /** Runs after the worker stopped consuming and before the edge closes (releasing leases). */
  readonly onStopping?: () => Promise<void>;
  /** Runs last when the broker stops (closing the session pool's agents). */
  readonly onStopped?: () => Promise<void>;
}

/** One port's receiving, held by a lease: stopping it stops receiving there and lets another edge take over. */
export interface ReceiverHold {
  stop(): Promise<void>;
}

/** Where events come from besides the platform ports: a scheduler, a webhook listener. */
export interface EventSource {
  /** Starts producing; each event is queued through `submit` (the broker's). Rejects when it cannot start (a listener's address taken). */
  start(submit: (event: GatewayEvent) => Promise<readonly QueuedEvent[]>): Promise<void>;
  /** Stops producing and waits for what it already handed to `submit`. */
  close(): Promise<void>;
}
