// nats.js 3.4.0 encodes every protocol line (`PUB`/`HPUB`) and header block with
// `TextEncoder.encode`, a fresh ArrayBuffer per call. patches/@nats-io+nats-core+3.4.0.patch makes
// both Buffer.from (Node's pooled slab): docs/scaling.md "The nats.js patches". These cases fail
// when that patch is lost (e.g. after a nats.js upgrade) or when it changes a byte on the wire.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { headers } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";

/** A header block as nats.js writes it (`MsgHdrsImpl.encode`, not on the public `MsgHdrs` type). */
const wire = (block: ReturnType<typeof headers>): Uint8Array => (block as unknown as { encode(): Uint8Array }).encode();

const LOST = "nats.js encodes with TextEncoder again: is patches/@nats-io+nats-core+3.4.0.patch applied (npm install)?";

/** nats-core's own `encode` (lib/encoders.js is not in the package's exports: loaded by path). */
function natsEncode(): (...parts: string[]) => Uint8Array {
  const require = createRequire(import.meta.url);
  const lib = dirname(require.resolve("@nats-io/nats-core"));
  return (require(join(lib, "encoders.js")) as { encode: (...parts: string[]) => Uint8Array }).encode;
}

describe("nats.js protocol encoding (the nats-core encoding patch)", () => {
  const encode = natsEncode();
  const textEncoder = new TextEncoder();
  /** Lines and header values as the broker writes them, and what UTF-8 makes hard: multi-byte, astral, a lone surrogate. */
  const samples = ["HPUB turnstream.turn.3 _INBOX.X1.2a 48 120\r\n", "PUB $JS.ACK.s.d.1.2.3.4.5.0 0\r\n", "café ✓ 😀", "\ud800 lone", ""];

  it("encodes protocol lines and header blocks with Buffer.from", () => {
    expect(Buffer.isBuffer(encode("PUB a 0\r\n")), LOST).toBe(true);
    const block = headers();
    block.append("Nats-Msg-Id", "telegram:12345");
    expect(Buffer.isBuffer(wire(block)), LOST).toBe(true);
  });

  it("writes the same bytes TextEncoder wrote, one part or several", () => {
    for (const text of samples) expect(Buffer.from(encode(text))).toEqual(Buffer.from(textEncoder.encode(text)));
    expect(Buffer.from(encode(...samples))).toEqual(Buffer.from(textEncoder.encode(samples.join(""))));
    const block = headers();
    block.append("Nats-Expected-Last-Subject-Sequence", "42");
    block.append("X-Note", "café ✓");
    expect(Buffer.from(wire(block))).toEqual(Buffer.from(textEncoder.encode(block.toString())));
  });
});
