import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { filesOf, until } from "../helpers/stack.js";
import { connect, fileSend, files, noFiles, NOTICE_LOG } from "./fileConnector.js";

// Files over the gateway protocol: inline in the reply frame where the hello says
// supports_outbound_attachments, one notice line elsewhere; over a real socket to the dev gateway.
// An 8 MiB file over the socket: connectorFiles.load.test.ts.

describe("GatewayConnector: files", () => {
  it("sends a file inline where the hello says supports_outbound_attachments: caption as text, the bytes as content.attachments", async () => {
    const { connector, frames, records } = await connect(files);
    expect(connector.capabilities("telegram")?.outboundFiles).toBe(true);
    const bytes = randomBytes(5_000);

    const receipt = await connector.send(fileSend(bytes.byteLength), { wantAck: true, file: bytes });

    expect(receipt.messageId).toMatch(/^gw-/);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.content.text).toBe("here it is");
    const [file] = filesOf(frames[0]!);
    expect(file).toMatchObject({ type: "file", filename: "report.pdf", mime_type: "application/pdf", size: 5_000 });
    expect(file?.bytes.equals(bytes)).toBe(true);
    expect(records.some((r) => r.msg === NOTICE_LOG)).toBe(false);
  });

  it("refuses a file whose frame is over the connection's frame ceiling with file_too_large, writing nothing; the next send goes", async () => {
    const { connector, frames } = await connect(files, { frameCeilingBytes: 64 * 1024 });
    const bytes = randomBytes(60_000); // 80,000 bytes of base64

    await expect(connector.send(fileSend(bytes.byteLength), { wantAck: true, file: bytes })).rejects.toMatchObject({ name: "SendError", code: "file_too_large" });

    const small = randomBytes(1_000);
    await connector.send(fileSend(small.byteLength), { wantAck: true, file: small });
    expect(frames).toHaveLength(1);
    expect(filesOf(frames[0]!)[0]?.bytes.equals(small)).toBe(true);
  });

  it("sends the notice line instead, never the bytes, where the hello does not say supports_outbound_attachments", async () => {
    const { connector, frames, records } = await connect(noFiles);
    const bytes = randomBytes(2_200_000);

    await connector.send(fileSend(bytes.byteLength), { wantAck: true, file: bytes });

    expect(frames).toHaveLength(1);
    expect(frames[0]?.content).toEqual({ type: "text", text: "📎 report.pdf (2.1 MB) could not be sent here\nhere it is" });
    expect(records.filter((r) => r.msg === NOTICE_LOG)).toEqual([expect.objectContaining({ reason: "files_unsupported", platform: "telegram", size: 2_200_000, legacy: false })]);
  });

  it("sends the notice line alone in legacy mode (no hello) when the file has no caption", async () => {
    const { connector, frames, records } = await connect({});
    expect(connector.capabilities("telegram")).toBeUndefined();

    await connector.send(fileSend(3, ""), { wantAck: false });

    expect(await until(() => frames.length === 1, 5_000)).toBe(true);
    expect(frames[0]?.content).toEqual({ type: "text", text: "📎 report.pdf (3 B) could not be sent here" });
    expect(records.find((r) => r.msg === NOTICE_LOG)).toMatchObject({ reason: "files_unsupported", legacy: true });
  });

  it("sends the notice line when the platform takes files but the send came without its bytes (the edge saw no capability)", async () => {
    const { connector, frames, records } = await connect(files);

    await connector.send(fileSend(3), { wantAck: true });

    expect(frames[0]?.content).toEqual({ type: "text", text: "📎 report.pdf (3 B) could not be sent here\nhere it is" });
    expect(records.find((r) => r.msg === NOTICE_LOG)).toMatchObject({ reason: "file_not_read", legacy: false });
  });
});
