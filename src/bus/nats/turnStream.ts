import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import { millis, nanos } from "@nats-io/transport-node";
import { BusSetupError, ConsumerConflictError } from "../errors.js";

/** What this deployment needs of its turn stream. */
export interface TurnStreamSpec {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly duplicateWindowMs: number;
}

/** What a durable turn consumer must be. */
export interface DurableSpec {
  readonly stream: string;
  readonly durable: string;
  readonly filter: string;
  readonly maxAckPending: number;
  readonly ackWaitMs: number;
}

/** The part of a stream's configuration that decides whether it can serve as the turn stream. */
export type StreamShape = Pick<StreamConfig, "subjects" | "retention" | "duplicate_window">;

/**
 * Creates the turn stream (WorkQueue retention, file storage, the configured duplicate window),
 * or checks that an existing one has the same subjects, retention and window. A mismatch is a
 * `BusSetupError` saying what to do: the stream may hold queued turns, so it is never changed here.
 */
export async function ensureTurnStream(jsm: JetStreamManager, spec: TurnStreamSpec): Promise<void> {
  const existing = await streamConfig(jsm, spec.name);
  if (existing !== undefined) {
    checkStream(spec, existing);
    return;
  }
  try {
    await jsm.streams.add({
      name: spec.name,
      subjects: [...spec.subjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(spec.duplicateWindowMs),
    });
  } catch (err) {
    // Another process may have created it meanwhile, maybe differently: judge what is there now.
    const raced = await streamConfig(jsm, spec.name).catch(() => undefined);
    if (raced !== undefined) return checkStream(spec, raced);
    throw new BusSetupError(`cannot create JetStream stream "${spec.name}" for ${spec.subjects.join(", ")}: ${describe(err)}`, { cause: err });
  }
}

/** Why an existing stream cannot be the turn stream (one line per difference); empty when it can. */
export function streamConflicts(spec: TurnStreamSpec, existing: StreamShape): string[] {
  const conflicts: string[] = [];
  const have = [...(existing.subjects ?? [])].sort();
  const want = [...spec.subjects].sort();
  if (have.join(",") !== want.join(",")) {
    conflicts.push(`subjects [${have.join(", ")}], not [${want.join(", ")}]`);
  }
  if (existing.retention !== RetentionPolicy.Workqueue) {
    conflicts.push(`retention ${existing.retention}, not ${RetentionPolicy.Workqueue}`);
  }
  const haveWindowMs = millis(existing.duplicate_window ?? 0);
  if (haveWindowMs !== Math.round(spec.duplicateWindowMs)) {
    conflicts.push(`duplicate window ${haveWindowMs / 1000} s, not ${spec.duplicateWindowMs / 1000} s (bus.duplicate_window_secs)`);
  }
  return conflicts;
}

function checkStream(spec: TurnStreamSpec, existing: StreamShape): void {
  const conflicts = streamConflicts(spec, existing);
  if (conflicts.length === 0) return;
  throw new BusSetupError(
    `JetStream stream "${spec.name}" exists with ${conflicts.join("; ")}. It may hold queued turns, so turnstream does not change it: ` +
      `drain and delete it (nats stream rm ${spec.name}), change the [bus] settings to match, or use another bus.prefix`,
  );
}

async function streamConfig(jsm: JetStreamManager, name: string): Promise<StreamConfig | undefined> {
  try {
    return (await jsm.streams.info(name)).config;
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw new BusSetupError(`cannot read JetStream stream "${name}": ${describe(err)}`, { cause: err });
  }
}

/**
 * Creates the durable pull consumer, or checks an existing one: another filter or `maxAckPending`
 * is a `ConsumerConflictError` (as on the in-process bus); another ack wait is updated, since the
 * keep-alive period derives from it. Resolves with the consumer as the server now has it.
 */
export async function ensureDurable(jsm: JetStreamManager, spec: DurableSpec): Promise<ConsumerInfo> {
  const existing = await consumerInfo(jsm, spec);
  if (existing === undefined) {
    try {
      return await jsm.consumers.add(spec.stream, durableConfig(spec));
    } catch (err) {
      const raced = await consumerInfo(jsm, spec).catch(() => undefined);
      if (raced === undefined) throw createFailure(spec, err);
      return ensureExisting(jsm, spec, raced);
    }
  }
  return ensureExisting(jsm, spec, existing);
}

/** Why an existing consumer cannot serve `spec`, in the in-process bus's words; undefined when it can. */
export function durableConflict(spec: DurableSpec, existing: ConsumerConfig): string | undefined {
  if (existing.deliver_subject !== undefined && existing.deliver_subject !== "") return "is a push consumer, not a pull consumer";
  if (existing.ack_policy !== AckPolicy.Explicit) return `has ack policy ${existing.ack_policy}, not ${AckPolicy.Explicit}`;
  const filter = existing.filter_subject ?? "";
  if (filter !== spec.filter) return `consumes "${filter}", not "${spec.filter}"`;
  if (existing.max_ack_pending !== spec.maxAckPending) {
    return `has maxAckPending ${existing.max_ack_pending}, not ${spec.maxAckPending}`;
  }
  return undefined;
}

async function ensureExisting(jsm: JetStreamManager, spec: DurableSpec, existing: ConsumerInfo): Promise<ConsumerInfo> {
  const conflict = durableConflict(spec, existing.config);
  if (conflict !== undefined) throw new ConsumerConflictError(spec.durable, conflict);
  if (existing.config.ack_wait === nanos(spec.ackWaitMs)) return existing;
  return jsm.consumers.update(spec.stream, spec.durable, { ack_wait: nanos(spec.ackWaitMs) });
}

function durableConfig(spec: DurableSpec): Partial<ConsumerConfig> {
  return {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: spec.filter,
    max_ack_pending: spec.maxAckPending,
    ack_wait: nanos(spec.ackWaitMs),
  };
}

/** Messages the durable has handed out and not seen acked; 0 when it does not exist. */
export async function ackPendingOf(jsm: JetStreamManager, stream: string, durable: string): Promise<number> {
  const info = await consumerInfo(jsm, { stream, durable });
  return info?.num_ack_pending ?? 0;
}

async function consumerInfo(jsm: JetStreamManager, spec: Pick<DurableSpec, "stream" | "durable">): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(spec.stream, spec.durable);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound) return undefined;
    throw err;
  }
}

/** JetStream's refusal of a work-queue consumer whose filter overlaps another's. */
const FILTER_NOT_UNIQUE = 10100;

function createFailure(spec: DurableSpec, err: unknown): Error {
  if (err instanceof JetStreamApiError && err.code === FILTER_NOT_UNIQUE) {
    return new ConsumerConflictError(spec.durable, `filter "${spec.filter}" overlaps another durable consumer of stream "${spec.stream}"`, {
      cause: err,
    });
  }
  return err instanceof Error ? err : new Error(String(err));
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
