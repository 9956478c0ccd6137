import { describe, expect, it } from "vitest";
import { uploadReceipt } from "../../../src/platforms/slack/uploadReceipt.js";

describe("uploadReceipt", () => {
  const C = "C0GENERAL";

  it("the ts of the share in the channel and thread when Slack's answer lists it", () => {
    const shares = { public: { C0OTHER: [{ ts: "1.000001" }], [C]: [{ ts: "1.000002", thread_ts: "0.000009" }, { ts: "1.000003", thread_ts: "1.000000" }] } };
    expect(uploadReceipt([{ files: [{ id: "F1", shares }] }], C, "1.000000")).toEqual({ messageId: "1.000003" });
  });

  it("at the top of a conversation, the share that is no reply; a private channel's or a DM's shares too", () => {
    const shares = { private: { [C]: [{ ts: "1.000002", thread_ts: "0.000009" }, { ts: "1.000004" }] } };
    expect(uploadReceipt([{ files: [{ id: "F1", shares }] }], C, undefined)).toEqual({ messageId: "1.000004" });
  });

  it("the file id when the answer lists no share there (Slack's documented answer: ids and titles)", () => {
    expect(uploadReceipt([{ files: [{ id: "F1" }] }], C, undefined)).toEqual({ messageId: "F1" });
    expect(uploadReceipt([{ files: [{ id: "F1", shares: { public: { [C]: [{ ts: "1.000002", thread_ts: "0.000009" }] } } }] }], C, undefined)).toEqual({ messageId: "F1" });
  });

  it("nothing when the answer names no file", () => {
    expect(uploadReceipt(undefined, C, undefined)).toBeUndefined();
    expect(uploadReceipt([{ files: [] }], C, undefined)).toBeUndefined();
    expect(uploadReceipt([{ files: [{ id: "" }] }], C, undefined)).toBeUndefined();
  });
});
