import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { leasePlan, leaseTarget } from "../../../operators/dispatch/leasePlan.js";

const runs = { numRuns: 300 };

const workerIds = fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,6}$/), { minLength: 1, maxLength: 6 });
const partitionCount = fc.integer({ min: 1, max: 64 });
/** A lease table: each partition free, held by a live worker (by index) or by a dead one. */
const table = (partitions: number) => fc.array(fc.integer({ min: -2, max: 6 }), { minLength: partitions, maxLength: partitions });

/** Deterministic order shuffles from one seed (mulberry32), so a failing run replays exactly. */
function shuffler(seed: number): <T>(items: readonly T[]) => T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (items) => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
    }
    return out;
  };
}

function holdersFrom(cells: readonly number[], workers: readonly string[]): Map<number, string> {
  const holders = new Map<number, string>();
  cells.forEach((cell, p) => {
    if (cell === -1) return;
    holders.set(p, cell < 0 || cell >= workers.length ? `dead-${cell}` : (workers[cell] as string));
  });
  return holders;
}

const ownedBy = (holders: ReadonlyMap<number, string>, worker: string) =>
  new Set([...holders].filter(([, holder]) => holder === worker).map(([p]) => p));

describe("leasePlan properties", () => {
  test.prop([workerIds, partitionCount], runs)("the targets of all workers cover every partition, each within floor..ceil", (workers, partitions) => {
    const targets = workers.map((w) => leaseTarget(partitions, workers, w));
    expect(targets.reduce((a, b) => a + b, 0)).toBe(partitions);
    for (const t of targets) {
      expect(t).toBeGreaterThanOrEqual(Math.floor(partitions / workers.length));
      expect(t).toBeLessThanOrEqual(Math.ceil(partitions / workers.length));
    }
  });

  test.prop([workerIds, partitionCount], runs)("from an empty table, workers with one view plan disjoint acquisitions covering everything", (workers, partitions) => {
    const plans = workers.map((self) => leasePlan({ partitions, self, owned: new Set(), holders: new Map(), workers }));
    const acquired = plans.flatMap((plan) => plan.acquire);
    expect(new Set(acquired).size).toBe(acquired.length);
    expect(acquired.sort((a, b) => a - b)).toEqual(Array.from({ length: partitions }, (_, i) => i));
  });

  test.prop([workerIds, partitionCount.chain((p) => fc.tuple(fc.constant(p), table(p)))], runs)(
    "never acquires a held partition, releases only owned ones, and never overshoots the target",
    (workers, [partitions, cells]) => {
      const holders = holdersFrom(cells, workers);
      for (const self of workers) {
        const owned = ownedBy(holders, self);
        const { acquire, release } = leasePlan({ partitions, self, owned, holders, workers });
        const target = leaseTarget(partitions, workers, self);
        for (const p of acquire) {
          expect(holders.has(p)).toBe(false);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThan(partitions);
        }
        for (const p of release) expect(owned.has(p)).toBe(true);
        expect(new Set(acquire).size).toBe(acquire.length);
        expect(new Set(release).size).toBe(release.length);
        expect(acquire.length === 0 || release.length === 0).toBe(true);
        expect(owned.size + acquire.length - release.length).toBe(
          owned.size > target ? target : Math.min(target, owned.size + (partitions - holders.size)),
        );
      }
    },
  );

  test.prop(
    [workerIds, partitionCount.chain((p) => fc.tuple(fc.constant(p), table(p))), fc.integer({ min: 0, max: 3 }), fc.noBias(fc.integer())],
    runs,
  )("converges: rounds of plan + apply (with create conflicts) reach one holder per partition, counts within 1", (workers, [partitions, cells], deadUntil, seed) => {
    const shuffle = shuffler(seed);
    const holders = holdersFrom(cells, workers);
    const maxRounds = partitions + 8;
    let rounds = 0;
    for (; rounds < maxRounds; rounds++) {
      // Every worker plans on the same snapshot, then all apply in a random order: a create
      // fails when someone got there first this round.
      const snapshot = new Map(holders);
      const plans = workers.map((self) => ({
        self,
        plan: leasePlan({ partitions, self, owned: ownedBy(snapshot, self), holders: snapshot, workers }),
      }));
      const idle = plans.every(({ plan }) => plan.acquire.length === 0 && plan.release.length === 0);
      if (idle && rounds > deadUntil) break;
      for (const { self, plan } of shuffle(plans)) {
        for (const p of plan.release) if (holders.get(p) === self) holders.delete(p);
        for (const p of plan.acquire) if (!holders.has(p)) holders.set(p, self);
      }
      // Leases of dead workers expire (bucket TTL) after a few rounds.
      if (rounds === deadUntil) for (const [p, holder] of holders) if (holder.startsWith("dead-")) holders.delete(p);
    }
    expect(rounds).toBeLessThan(maxRounds);
    expect(holders.size).toBe(partitions);
    const counts = workers.map((w) => ownedBy(holders, w).size);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(partitions);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    for (const w of workers) expect(ownedBy(holders, w).size).toBe(leaseTarget(partitions, workers, w));
  });
});
