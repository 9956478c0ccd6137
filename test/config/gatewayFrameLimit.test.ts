import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { FRAME_CEILING_BYTES } from "../../src/config/sections/gateway.js";
import { problemsOf } from "./problemsOf.js";

const gateway = (extra: Record<string, unknown>) => ({ gateway: { url: "ws://x", ...extra } });
const expected = "an integer from 1024 to 134217728 (128 MiB: the largest frame the gateway connector reads)";

describe("[gateway] max_frame_bytes", () => {
  it("defaults to 4 MiB and takes anything from 1 KiB up to the connector's ceiling, 128 MiB", () => {
    expect(FRAME_CEILING_BYTES).toBe(128 * 1024 * 1024);
    expect(resolveConfig(gateway({}), { env: {} }).gateway?.max_frame_bytes).toBe(4 * 1024 * 1024);
    expect(resolveConfig(gateway({ max_frame_bytes: 1024 }), { env: {} }).gateway?.max_frame_bytes).toBe(1024);
    expect(resolveConfig(gateway({ max_frame_bytes: FRAME_CEILING_BYTES }), { env: {} }).gateway?.max_frame_bytes).toBe(FRAME_CEILING_BYTES);
  });

  it.each([FRAME_CEILING_BYTES + 1, 200_000_000, 1023])("refuses %j, naming the ceiling", (value) => {
    expect(problemsOf(gateway({ max_frame_bytes: value }))).toEqual([{ path: "gateway.max_frame_bytes", message: `${value} is not allowed; expected ${expected}` }]);
  });
});
