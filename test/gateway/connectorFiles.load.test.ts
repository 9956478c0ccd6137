import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { filesOf } from "../helpers/stack.js";
import { connect, fileSend, files } from "./fileConnector.js";

const MIB = 1024 * 1024;

// About 2 s on a shared 2-core machine (encoding, writing and parsing an 11 MiB frame), so it runs with the load suite.
describe("GatewayConnector: a big file", () => {
  it("an 8 MiB file (a gateway platform's limit, about 11 MiB in base64) fits the frame the connector writes", async () => {
    const { connector, frames } = await connect(files);
    const bytes = randomBytes(8 * MIB);

    await connector.send(fileSend(bytes.byteLength, "", "image"), { wantAck: true, file: bytes });

    const [file] = filesOf(frames[0]!);
    expect(file?.type).toBe("image");
    expect(file?.bytes.equals(bytes)).toBe(true);
  });
});
