import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";

/** The part of a NATS KV bucket the leases use (a `KV` from `openBucket` is one). */
export type LeaseBucket = Pick<KV, "create" | "update" | "put" | "delete" | "get" | "keys">;

/** A lease as the bucket holds it: who, and the revision a renew or delete must match. */
export interface Lease {
  readonly workerId: string;
  readonly revision: number;
}

/** Everything a worker reads from the bucket each tick. */
export interface LeaseTable {
  readonly holders: ReadonlyMap<number, Lease>;
  /** Worker ids with a presence key: the live workers. */
  readonly workers: readonly string[];
}

/** `partition.<n>` holds the id of the worker leasing partition n. */
export const partitionKey = (partition: number): string => `partition.${partition}`;

/** `worker.<id>` is a worker's presence, renewed with its leases and gone with the bucket TTL. */
export const presenceKey = (workerId: string): string => `worker.${workerId}`;

/**
 * `receiver.<connection>` holds the id of the process holding a connection only one may hold, such
 * as `receiver.telegram.123456` for a Telegram bot's poller (`ReceiverLease`).
 */
export function receiverKey(connection: string): string {
  if (!/^[-\w=]+(\.[-\w=]+)*$/.test(connection)) {
    throw new RangeError(`receiver ${JSON.stringify(connection)} is not a lease key; use dot-separated tokens of letters, digits, "_", "-" or "="`);
  }
  return `receiver.${connection}`;
}

/** One key token: letters, digits, `_`, `-` and `=` (a KV key allows these; no `.` splits it). */
export function assertWorkerId(workerId: string): void {
  if (!/^[-\w=]+$/.test(workerId)) {
    throw new RangeError(`worker id ${JSON.stringify(workerId)} is not allowed; use letters, digits, "_", "-" or "="`);
  }
}

/** The compare-and-set failure of `create` on a live key and of `update`/`delete` on a stale revision. */
export function isRevisionConflict(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/**
 * Reads the live lease table. An entry aged out by the bucket TTL is simply absent; a deleted one
 * (a release) shows as a `DEL` marker, which counts as free. Keys outside `[0, partitions)` are ignored.
 */
export async function readLeaseTable(kv: LeaseBucket, partitions: number): Promise<LeaseTable> {
  const keys: string[] = [];
  for await (const key of await kv.keys()) keys.push(key);

  const workers = keys.filter((key) => key.startsWith("worker.")).map((key) => key.slice("worker.".length));
  const leased = keys
    .map((key) => (/^partition\.(\d+)$/.exec(key)?.[1] ?? ""))
    .filter((digits) => digits !== "")
    .map(Number)
    .filter((partition) => partition < partitions);
  const entries = await Promise.all(leased.map(async (partition) => [partition, await kv.get(partitionKey(partition))] as const));

  const holders = new Map<number, Lease>();
  for (const [partition, entry] of entries) {
    if (entry?.operation === "PUT") holders.set(partition, { workerId: entry.string(), revision: entry.revision });
  }
  return { holders, workers };
}
