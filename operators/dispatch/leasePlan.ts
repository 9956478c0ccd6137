/** What one worker knows when it plans: its own leases and the bucket's view of everyone's. */
export interface LeaseView {
  readonly partitions: number;
  readonly self: string;
  /** Partitions this worker holds a live lease on. */
  readonly owned: ReadonlySet<number>;
  /** Partition → worker id holding it, as read from the lease bucket. */
  readonly holders: ReadonlyMap<number, string>;
  /** Live worker ids (present in the bucket), self included or not. */
  readonly workers: readonly string[];
}

export interface LeasePlan {
  /** Free partitions to create leases on, most preferred first. */
  readonly acquire: readonly number[];
  /** Owned partitions to drain and give up, least preferred first. */
  readonly release: readonly number[];
}

/**
 * How many partitions `self` should hold among `workers`: ceil(partitions / workers) for the first
 * `partitions mod workers` worker ids in sorted order, floor for the rest. No worker ever aims
 * above ceil, and the targets sum to exactly `partitions`, so counts settle within 1 of each other
 * (a plain ceil for everyone could leave 16 partitions over 5 workers as 4/4/4/4/0).
 */
export function leaseTarget(partitions: number, workers: readonly string[], self: string): number {
  const { base, extra, rank } = standing(partitions, workers, self);
  return base + (rank < extra ? 1 : 0);
}

/**
 * One worker's next step towards a balanced lease table. It acquires free partitions (no holder)
 * up to its target and releases what it holds above it; it never plans to take a held partition.
 *
 * Preference: each worker walks the partitions from its own offset, the start of its block in a
 * contiguous split by rank (worker 0 of 3 over 16 prefers 0–5, worker 1 prefers 6–10, worker 2
 * 11–15), so workers that join together with the same view pick disjoint partitions and a create
 * conflict is rare. A release gives up the owned partitions furthest along that walk: a worker keeps
 * its own block, and the partitions it lets go are the ones other workers' blocks cover.
 */
export function leasePlan(view: LeaseView): LeasePlan {
  const { partitions, self, owned, holders } = view;
  const { base, extra, rank } = standing(partitions, view.workers, self);
  const target = base + (rank < extra ? 1 : 0);
  const offset = rank * base + Math.min(rank, extra);
  const preference = Array.from({ length: partitions }, (_, i) => (offset + i) % partitions);

  const mine = preference.filter((p) => owned.has(p));
  if (mine.length > target) return { acquire: [], release: mine.slice(target).reverse() };

  const free = preference.filter((p) => !owned.has(p) && !holders.has(p));
  return { acquire: free.slice(0, target - mine.length), release: [] };
}

function standing(partitions: number, workers: readonly string[], self: string): { base: number; extra: number; rank: number } {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
  }
  const live = [...new Set([...workers, self])].sort();
  return {
    base: Math.floor(partitions / live.length),
    extra: partitions % live.length,
    rank: live.indexOf(self),
  };
}
