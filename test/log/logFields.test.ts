import { describe, expect, it } from "vitest";
import { cleanLogFields } from "../../src/log/logFields.js";
import { createLogger } from "../../src/log/logger.js";
import { CONTROL_CHARS } from "../helpers/untrusted.js";


describe("cleanLogFields: the logger's backstop for strings logged as they are", () => {
  it("returns plain fields as the same object (the common case costs no copy)", () => {
    const fields = { event_id: "evt-1", sessionKey: "telegram:chat-1:", count: 3, channel: { id: "c1" } };
    expect(cleanLogFields(fields)).toBe(fields);
  });

  it("bounds and cleans top-level and nested strings, leaving the input untouched", () => {
    const hostile = `evt\u001b[2J\u0000\r\n\u202e${"x".repeat(1_000_000)}`;
    const fields = { event_id: hostile, channel: { id: `chat\u0000`, thread: { id: "t\u0000", deeper: { id: "d\u0000" } } }, ids: ["a\nb"] };
    const cleaned = cleanLogFields(fields);
    expect(String(cleaned.event_id).length).toBeLessThanOrEqual(500);
    expect(String(cleaned.event_id)).toMatch(/^evt.*…\(\+[\d,]+ chars\)$/);
    expect(cleaned.channel).toEqual({ id: "chat", thread: { id: "t", deeper: { id: "d\u0000" } } }); // two levels down, no deeper
    expect(cleaned.ids).toEqual(["a b"]);
    expect(fields.event_id).toBe(hostile);
    expect(fields.channel.id).toBe("chat\u0000");
  });

  it("leaves errors to their serializer", () => {
    const err = new Error("boom\u0000");
    expect(cleanLogFields({ err }).err).toBe(err);
  });

  it("is wired into createLogger for fields and child bindings", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    logger.child({ workerId: "w1" }).child({ sessionKey: `p:${"好".repeat(2_000)}\u0000:` }).info({ event_id: "e\u001b[31m1", message_id: "m".repeat(10_000) }, "probe");
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, string>;
    expect(record.event_id).toBe("e1");
    expect(record.message_id!.length).toBeLessThanOrEqual(500);
    expect(record.sessionKey!.length).toBeLessThanOrEqual(500);
    for (const value of Object.values(record)) if (typeof value === "string") expect(CONTROL_CHARS.test(value)).toBe(false);
    expect(lines[0]!.length).toBeLessThan(2_000);
  });
});
