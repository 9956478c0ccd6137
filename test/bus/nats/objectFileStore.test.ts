import { createHash, randomBytes } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { Objm, StorageType } from "@nats-io/obj";
import { connect, nanos } from "@nats-io/transport-node";
import type { Subscription } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { FileStoreError, StoredFileMissingError } from "../../../src/bus/files/fileStore.js";
import { NatsBus } from "../../../src/bus/nats/natsBus.js";
import { FILE_CHUNK_BYTES, FILE_MAX_AGE_MS, ObjectFileStore } from "../../../src/bus/nats/objectFileStore.js";
import { busSection } from "../../../src/config/sections/bus.js";
import { subjects } from "../../../src/wire/index.js";
import { natsServerAvailable, useNatsServer } from "../../helpers/natsServer.js";
import { waitFor, waitUntil } from "../busContract.js";
import { count, fileStoreContract, get, put, remove } from "../files/fileStoreContract.js";

const available = natsServerAvailable();
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

describe.skipIf(!available)("ObjectFileStore (NatsBus.files)", () => {
  const nats = useNatsServer();
  const buses: NatsBus[] = [];
  let prefixes = 0;
  const nextPrefix = () => `files${(prefixes += 1)}`;
  const connectBus = async (prefix: string) => {
    const bus = await NatsBus.connect({ bus: busSection.parse({ url: nats.server.url, prefix }) });
    buses.push(bus);
    return bus;
  };
  /** A worker's bus and an edge's, as two processes of one deployment have them. */
  const deployment = async () => {
    const prefix = nextPrefix();
    const [worker, edge] = await Promise.all([connectBus(prefix), connectBus(prefix)]);
    return { prefix, bucket: subjects(prefix).filesBucket, worker, edge };
  };
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  fileStoreContract("ObjectFileStore", async () => {
    const { worker, edge } = await deployment();
    return { worker: worker.files, edge: edge.files };
  });

  it("opens no bucket at connect; the first file operation creates it: file storage, max age 1 h", async () => {
    const { bucket, worker } = await deployment();
    const objm = new Objm(worker.connection);
    await expect(objm.open(bucket)).rejects.toThrow(/not found/);

    expect(await count(worker.files)).toBe(0);
    const status = await (await objm.open(bucket)).status();
    expect(FILE_MAX_AGE_MS).toBe(60 * 60 * 1000);
    expect(status.ttl).toBe(nanos(FILE_MAX_AGE_MS));
    expect(status.storage).toBe(StorageType.File);
  });

  it("carries a file bigger than max_payload in chunks of 128 KiB, intact", async () => {
    const { bucket, worker, edge } = await deployment();
    const maxPayload = worker.maxMessageBytes() ?? 0;
    expect(maxPayload).toBe(1024 * 1024);
    const report = randomBytes(2 * maxPayload + 5);
    await put(worker.files, "f-report", report);

    const info = await (await new Objm(worker.connection).open(bucket)).info("f-report");
    expect(info).toMatchObject({ size: report.length, chunks: Math.ceil(report.length / FILE_CHUNK_BYTES), options: { max_chunk_size: FILE_CHUNK_BYTES } });
    expect(FILE_CHUNK_BYTES).toBeLessThan(maxPayload / 4);
    expect(sha256(await get(edge.files, "f-report"))).toBe(sha256(report));
  });

  it("leaves nothing in the bucket once its files are deleted: no chunk, no tombstone", async () => {
    const { bucket, worker, edge } = await deployment();
    await put(worker.files, "f-a", randomBytes(300_000));
    await put(worker.files, "f-b", randomBytes(10));
    await get(edge.files, "f-a");
    await remove(worker.files, "f-a");
    await remove(worker.files, "f-b");

    expect(await count(edge.files)).toBe(0);
    const status = await (await new Objm(worker.connection).open(bucket)).status();
    expect(status.streamInfo.state.messages).toBe(0);
  });

  it("refuses a bucket made with another max age, naming both, and opens it once that is fixed", async () => {
    const { bucket, worker } = await deployment();
    const nc = await connect({ servers: nats.server.url });
    try {
      const other = await new Objm(nc).create(bucket, { storage: StorageType.File, ttl: nanos(60_000) });
      const error = await put(worker.files, "f-x", new Uint8Array([1])).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(FileStoreError);
      expect((error as Error).message).toContain(`object store bucket "${bucket}" exists with max age 60000 ms; this deployment needs 3600000 ms`);

      await other.destroy();
      await put(worker.files, "f-x", new Uint8Array([1]));
      expect(await count(worker.files)).toBe(1);
    } finally {
      await nc.close();
    }
  });

  it("fails with FileStoreError carrying the client's error once the bus is closed; a missing file is still told apart", async () => {
    const { worker, edge } = await deployment();
    await expect(get(edge.files, "f-none")).rejects.toBeInstanceOf(StoredFileMissingError);
    await edge.close();
    for (const attempt of [get(edge.files, "f-none"), put(edge.files, "f-y", new Uint8Array([1])), remove(edge.files, "f-y"), count(edge.files)]) {
      const error = await attempt.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(FileStoreError);
      expect((error as FileStoreError).cause).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/^cannot (get|put|delete|count) (file f-[a-z]+|files) in object store bucket "files\d+_files": /);
    }
    // The other process's bus is unaffected.
    expect(await count(worker.files)).toBe(0);
  });

  it("gives up on a read whose chunks are gone (expired or purged under it) once the next chunk is stallMs late", async () => {
    const { bucket, worker } = await deployment();
    const store = new ObjectFileStore(jetstream(worker.connection), { bucket, stallMs: 300 });
    await put(store, "f-stalled", randomBytes(2 * FILE_CHUNK_BYTES));
    const objects = await new Objm(worker.connection).open(bucket);
    const info = await objects.info("f-stalled");
    const { streamInfo } = await objects.status();
    // What the max age does to chunks before their (later) metadata: the chunks go, the name stays.
    const jsm = await jetstream(worker.connection).jetstreamManager();
    await jsm.streams.purge(streamInfo.config.name, { filter: `$O.${bucket}.C.${info?.nuid ?? ""}` });

    const started = performance.now();
    const error = await get(store, "f-stalled").catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FileStoreError);
    expect((error as Error).message).toContain("no chunk for 300 ms");
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("stops a put whose subscriber left, and the chunks it sent are purged", async () => {
    const { bucket, worker } = await deployment();
    await put(worker.files, "f-warm", new Uint8Array([0])); // the bucket is open: the abandoned put starts sending at once
    await remove(worker.files, "f-warm");
    const objects = await new Objm(worker.connection).open(bucket);
    // Every chunk is a JetStream append on `$O.<bucket>.C.<id>`: a core subscriber sees the first as it goes out.
    let chunksSeen = 0;
    let putting: Subscription | undefined;
    const chunks = worker.connection.subscribe(`$O.${bucket}.C.>`, {
      callback: () => {
        chunksSeen += 1;
        putting?.unsubscribe();
      },
    });
    putting = worker.files.put("f-abandoned", randomBytes(40 * FILE_CHUNK_BYTES)).subscribe();
    await waitFor(() => chunksSeen > 0, "the first chunk");
    await waitUntil(async () => (await objects.status()).streamInfo.state.messages === 0, "the sent chunks purged");
    chunks.unsubscribe();
    expect(chunksSeen).toBeLessThan(40);
    expect(await count(worker.files)).toBe(0);
    await expect(get(worker.files, "f-abandoned")).rejects.toBeInstanceOf(StoredFileMissingError);
  });
});
