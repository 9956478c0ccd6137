import { randomBytes } from "node:crypto";
import { lastValueFrom, throwError, type Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { FileStoreError, MemoryFileStore, type FileStore } from "../../src/bus/index.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { devGatewayHello } from "../../src/devgateway/devGateway.js";
import { filesOf, until } from "../helpers/stack.js";
import { message, startEdge } from "./edgeFixture.js";

// The edge's half of a file: it reads the bytes from the bus's file store and hands them to the
// port, only for a platform whose capabilities say outboundFiles, over a real dev gateway.

const withFiles = { hello: devGatewayHello("telegram") };
/** Its hello requires acks: a generous bound for a loaded machine (the fixture's 300 ms is for legacy sends). */
const acked = { connector: { requiredAckTimeoutMs: 10_000 } };
const withoutFiles = { hello: { capabilities: { telegram: { ...(devGatewayHello("telegram").capabilities as { telegram: object }).telegram, supports_outbound_attachments: false } } } };

function fileMessage(ref: string, size: number, caption = "the chart"): OutboundMessage {
  return { ...message, content: { type: "text", text: caption }, attachment: { filename: "chart.png", mime_type: "image/png", size, kind: "image", ref } };
}

async function put(bus: MemoryBus, ref: string, bytes: Uint8Array): Promise<void> {
  await lastValueFrom(bus.files.put(ref, bytes), { defaultValue: undefined });
}

/** A store whose server is gone: every read fails in the store itself. */
class UnreachableFileStore extends MemoryFileStore {
  override get(): Observable<Uint8Array> {
    return throwError(() => new FileStoreError("the file store's bucket is unreachable"));
  }
}

class UnreachableFilesBus extends MemoryBus {
  override readonly files: FileStore = new UnreachableFileStore();
}

describe("runEdge: files", () => {
  it("reads the stored bytes and posts them inline: the gateway decodes exactly those bytes", async () => {
    const bus = new MemoryBus();
    const { frames, request } = await startEdge(withFiles, { ...acked, bus });
    const bytes = randomBytes(70_000);
    await put(bus, "file-1", bytes);

    const answer = await request(undefined, fileMessage("file-1", bytes.byteLength));

    expect(answer).toMatchObject({ ok: true, messageId: expect.stringMatching(/^gw-/) });
    expect(frames).toHaveLength(1);
    const [file] = filesOf(frames[0]!);
    expect(file).toMatchObject({ type: "image", filename: "chart.png", mime_type: "image/png", size: bytes.byteLength, caption: "the chart" });
    expect(file?.bytes.equals(bytes)).toBe(true);
  });

  it("answers file_missing, posting nothing, when the stored file is gone", async () => {
    const { frames, request } = await startEdge(withFiles, acked);

    const answer = await request(undefined, fileMessage("never-put", 10));

    expect(answer).toEqual({ ok: false, code: "file_missing", error: "the file to send is no longer in the bus's file store" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(frames).toEqual([]);
  });

  it("answers file_store_failed, posting nothing, when the store fails or holds other bytes than the send names", async () => {
    const failing = await startEdge(withFiles, { ...acked, bus: new UnreachableFilesBus() });
    expect(await failing.request(undefined, fileMessage("file-1", 10))).toMatchObject({ ok: false, code: "file_store_failed" });

    const bus = new MemoryBus();
    const short = await startEdge(withFiles, { ...acked, bus });
    await put(bus, "file-1", randomBytes(9));
    expect(await short.request(undefined, fileMessage("file-1", 10))).toEqual({ ok: false, code: "file_store_failed", error: "the stored file is 9 bytes, the send names 10" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([...failing.frames, ...short.frames]).toEqual([]);
  });

  it("reads nothing for a platform without outboundFiles: the notice goes, and a missing file does not matter", async () => {
    for (const gateway of [withoutFiles, {}]) {
      const { frames, request, records } = await startEdge(gateway, acked);

      // Nothing was ever stored: reading it would have answered file_missing.
      expect(await request(undefined, fileMessage("never-put", 2_100_000))).toMatchObject({ ok: true });

      expect(await until(() => frames.length === 1, 5_000)).toBe(true);
      expect(frames[0]?.content).toEqual({ type: "text", text: "📎 chart.png (2.0 MB) could not be sent here\nthe chart" });
      expect(records.find((r) => r.msg === "file not sent over the gateway; its notice sent instead")).toMatchObject({ reason: "files_unsupported", legacy: gateway === withoutFiles ? false : true });
    }
  });

  it("a plain send without a file is unchanged by the file path", async () => {
    const { frames, request } = await startEdge(withFiles, acked);
    expect(await request()).toMatchObject({ ok: true });
    expect(frames[0]?.content).toEqual({ type: "text", text: "on it" });
  });
});
