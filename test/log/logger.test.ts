import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, resolveLogLevel } from "../../src/log/logger.js";

describe("resolveLogLevel", () => {
  it("uses [log] level when LOG_LEVEL is unset or blank", () => {
    expect(resolveLogLevel("warn", undefined)).toBe("warn");
    expect(resolveLogLevel("warn", "  ")).toBe("warn");
  });

  it("lets LOG_LEVEL win, case-insensitively", () => {
    expect(resolveLogLevel("info", "DEBUG")).toBe("debug");
    expect(resolveLogLevel("debug", "silent")).toBe("silent");
  });

  it("rejects an unknown LOG_LEVEL naming the variable, the value and the allowed levels", () => {
    expect(() => resolveLogLevel("info", "loud")).toThrow(
      'LOG_LEVEL: "loud" is not allowed; expected one of trace, debug, info, warn, error, fatal, silent',
    );
  });
});

describe("createLogger", () => {
  it("writes one JSON object per line with msg, level and fields, dropping levels below the threshold", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    logger.debug("hidden");
    logger.info({ sessionKey: "telegram:c1", reason: "example" }, "turn complete");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      level: 30,
      name: "turnstream",
      msg: "turn complete",
      sessionKey: "telegram:c1",
      reason: "example",
    });
  });

  it("writes human-readable lines when pretty", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: "info", pretty: true, destination });
    logger.info({ role: "all" }, "broker ready");
    const text = lines.join("");
    expect(text).toContain("broker ready");
    expect(() => JSON.parse(text)).toThrow();
  });
});
