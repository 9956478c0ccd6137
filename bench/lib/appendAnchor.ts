import { jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient } from "@nats-io/jetstream";
import { connect, nanos } from "@nats-io/transport-node";
import { median } from "./stats.js";

/** Appends of one pass, and how many are in flight at once (the server probe's figures, bench/lib/jetstreamProbe.ts). */
export const ANCHOR_APPENDS = 5_000;
export const ANCHOR_WINDOW = 256;

/** The anchor's passes in one benchmark run: what its NATS targets are ratios to. */
export interface AppendAnchorResult {
  /** The median pass: nats-server's own pipelined appends/s on this machine, in this run. */
  readonly pipelinedAppendsPerSecond: number;
  /** Every counted pass, in order (the first one, a warm-up, is not among them). */
  readonly passes: number[];
  readonly appends: number;
  readonly window: number;
}

/** A connection measuring the anchor; `measure()` between a benchmark's timed runs. */
export interface AppendAnchor {
  /** One counted pass; resolves with its appends/s. */
  measure(): Promise<number>;
  result(): AppendAnchorResult;
  close(): Promise<void>;
}

/**
 * nats-server's own pipelined append rate, measured between a benchmark's timed runs: `appends`
 * JetStream publishes with a msg id to a stream shaped like the turn stream (WorkQueue, file
 * storage, a 2-minute duplicate window), up to `window` unacknowledged at once, on a connection
 * like turnstream's (`noAsyncTraces: true`, src/bus/nats/connect.ts). No turnstream code runs in
 * it, so it moves with the machine (the host's speed, other work on it) and not with the broker:
 * the NATS targets are ratios to it (docs/benchmarks.md, "Targets as ratios"). Connects, creates
 * the anchor's stream (`name` keeps it apart from others on the server) and runs one untimed pass,
 * so the client's code is warm when the first counted one runs.
 */
export async function startAppendAnchor(url: string, name = "anchor"): Promise<AppendAnchor> {
  const nc = await connect({ servers: url, noAsyncTraces: true });
  try {
    await (await jetstreamManager(nc)).streams.add({
      name,
      subjects: [`${name}.>`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
    });
  } catch (err) {
    await nc.close();
    throw err;
  }
  const js = jetstream(nc);
  const passes: number[] = [];
  let pass = 0;
  const run = () => pipelinedPass(js, name, `p${pass++}`);
  await run();
  return {
    measure: async () => {
      const rate = await run();
      passes.push(rate);
      return rate;
    },
    result: () => ({ pipelinedAppendsPerSecond: Math.round(median(passes)), passes: [...passes], appends: ANCHOR_APPENDS, window: ANCHOR_WINDOW }),
    close: () => nc.close(),
  };
}

/** `ANCHOR_APPENDS` appends, `ANCHOR_WINDOW` in flight at once, new msg ids (`idPrefix`): a repeated id would be answered from the duplicate window without being stored. */
async function pipelinedPass(js: JetStreamClient, subject: string, idPrefix: string): Promise<number> {
  const payload = JSON.stringify({ schema: "openab.gateway.event.v1", text: "x".repeat(400) });
  const started = performance.now();
  for (let from = 0; from < ANCHOR_APPENDS; from += ANCHOR_WINDOW) {
    const batch: Promise<unknown>[] = [];
    for (let i = from; i < Math.min(ANCHOR_APPENDS, from + ANCHOR_WINDOW); i++) batch.push(js.publish(`${subject}.${i % 16}`, payload, { msgID: `${idPrefix}-${i}` }));
    await Promise.all(batch);
  }
  return Math.round(ANCHOR_APPENDS / ((performance.now() - started) / 1000));
}
