import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, nanos } from "@nats-io/transport-node";

export interface JetStreamCeiling {
  /** `js.publish` awaited one at a time: the most a one-append-at-a-time edge can reach. */
  readonly sequentialPublishesPerSecond: number;
  /** The same appends with up to `window` unacknowledged at once. */
  readonly windowedPublishesPerSecond: number;
  readonly window: number;
  /** One KV `get` + `update` pair awaited one at a time (what a compare-and-set costs), per second. */
  readonly sequentialKvCasPerSecond: number;
}

/**
 * What the server itself allows on this machine, without turnstream: a stream shaped like the turn
 * stream (WorkQueue, file storage, a 2-minute duplicate window, publishes with a msg id) and a KV
 * bucket, on a connection with the client's default (`noAsyncTraces: false`) or with its
 * per-request error contexts turned off, as turnstream connects (src/bus/nats/connect.ts). These
 * numbers bound the NATS ingress: an edge that awaits each append cannot beat
 * `sequentialPublishesPerSecond`. The targets' anchor is the pipelined figure measured between the
 * timed runs (bench/lib/appendAnchor.ts); these, once after them, are for information.
 */
export async function probeJetStream(url: string, count: number, options: { readonly noAsyncTraces: boolean; readonly window?: number }): Promise<JetStreamCeiling> {
  const window = options.window ?? 256;
  const nc = await connect({ servers: url, noAsyncTraces: options.noAsyncTraces });
  const tag = options.noAsyncTraces ? "quiet" : "traced";
  try {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    await jsm.streams.add({
      name: `probe_${tag}`,
      subjects: [`probe.${tag}.>`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
    });
    const payload = JSON.stringify({ schema: "openab.gateway.event.v1", text: "x".repeat(400) });
    const rate = (started: number) => Math.round(count / ((performance.now() - started) / 1000));

    let started = performance.now();
    for (let i = 0; i < count; i++) await js.publish(`probe.${tag}.${i % 16}`, payload, { msgID: `seq-${i}` });
    const sequential = rate(started);

    started = performance.now();
    for (let from = 0; from < count; from += window) {
      const batch: Promise<unknown>[] = [];
      for (let i = from; i < Math.min(count, from + window); i++) batch.push(js.publish(`probe.${tag}.${i % 16}`, payload, { msgID: `win-${i}` }));
      await Promise.all(batch);
    }
    const windowed = rate(started);

    const kv = await new Kvm(nc).create(`probe_kv_${tag}`, { history: 1 });
    started = performance.now();
    for (let i = 0; i < count; i++) {
      const key = `k${i % 256}`;
      const entry = await kv.get(key);
      if (entry === null) await kv.create(key, "1");
      else await kv.update(key, String(i), entry.revision);
    }
    const cas = rate(started);
    return { sequentialPublishesPerSecond: sequential, windowedPublishesPerSecond: windowed, window, sequentialKvCasPerSecond: cas };
  } finally {
    await nc.close();
  }
}
