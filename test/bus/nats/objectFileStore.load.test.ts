import { createHash, randomBytes } from "node:crypto";
import { Objm } from "@nats-io/obj";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NatsBus } from "../../../src/bus/nats/natsBus.js";
import { FILE_CHUNK_BYTES } from "../../../src/bus/nats/objectFileStore.js";
import { busSection } from "../../../src/config/sections/bus.js";
import { subjects } from "../../../src/wire/index.js";
import { natsServerAvailable, useNatsServer } from "../../helpers/natsServer.js";
import { count, get, put, remove } from "../files/fileStoreContract.js";

const available = natsServerAvailable();
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
const FILE_BYTES = 20 * 1024 * 1024;

// Issue 42: on NATS a 20 MB file goes from worker to edge with the server's default max_payload (1 MiB), and nothing is left after.
describe.skipIf(!available)("ObjectFileStore: a 20 MB file", () => {
  const nats = useNatsServer();
  let worker: NatsBus;
  let edge: NatsBus;
  beforeAll(async () => {
    const bus = busSection.parse({ url: nats.server.url, prefix: "bigfile" });
    [worker, edge] = await Promise.all([NatsBus.connect({ bus, name: "worker" }), NatsBus.connect({ bus, name: "edge" })]);
  });
  afterAll(async () => {
    await Promise.all([worker?.close(), edge?.close()]);
  });

  it("goes from the worker's bus to the edge's intact, in 128 KiB chunks under a 1 MiB max_payload, and leaves the bucket empty", async () => {
    expect(worker.maxMessageBytes()).toBe(1024 * 1024);
    const file = randomBytes(FILE_BYTES);
    await put(worker.files, "f-20mb", file);

    const bucket = await new Objm(worker.connection).open(subjects("bigfile").filesBucket);
    expect(await bucket.info("f-20mb")).toMatchObject({ size: FILE_BYTES, chunks: FILE_BYTES / FILE_CHUNK_BYTES });

    const read = await get(edge.files, "f-20mb");
    expect(read.length).toBe(FILE_BYTES);
    expect(sha256(read)).toBe(sha256(file));

    await remove(worker.files, "f-20mb");
    expect(await count(edge.files)).toBe(0);
    expect((await bucket.status()).streamInfo.state.messages).toBe(0);
  });
});
