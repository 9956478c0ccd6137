import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { untrustedText } from "../../operators/ingress/untrustedText.js";
import { createLogger, resolveLogLevel } from "../../src/log/logger.js";
import { shownFragments } from "../helpers/secretFragments.js";

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

describe("createLogger's secret scrubbing", () => {
  const capture = (secrets: readonly string[], pretty = false) => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: "trace", pretty, secrets, destination });
    return { logger, lines };
  };

  it("masks every given secret value however it is spelled in the line, and keeps lines JSON", () => {
    const { logger, lines } = capture(["pw-77c1-secret", 'quo"te-secret', "a b&c=secret"]);
    logger.info({ detail: "login with pw-77c1-secret failed", q: 'x quo"te-secret y' }, "something");
    logger.warn({ err: new Error("auth a%20b%26c%3Dsecret refused") }, "other");
    const text = lines.join("");
    expect(text).not.toMatch(/pw-77c1|quo\\?"te|a%20b|a b&c/);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ detail: "login with *** failed", q: "x *** y" });
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ err: { message: "auth *** refused" } });
  });

  it("masks URL credentials in any line, also without known secrets and in pretty output", () => {
    for (const pretty of [false, true]) {
      const { logger, lines } = capture([], pretty);
      logger.info({ url: "ws://gw/ws?token=abc123", other: "nats://u:pw9999@h:4222" }, "x");
      expect(lines.join(""), String(pretty)).not.toMatch(/abc123|pw9999/);
    }
  });

  // A string is cut to 500 characters before the line is scrubbed (by its source, or by the
  // logger's own field bound): a secret across the cut showed its head, `Zq7XenvK-0c3d…(+20 chars)`.
  describe("a cut never leaves a piece of a secret, wherever it falls", () => {
    const secrets = ["Zq7XenvK-0c3d55-Wq-longer-value", 'quo"te-s3cret\\back'];
    const lead = (n: number) => `é${"x".repeat(n)} `;

    it("in a field the logger bounds, and in one its source cut (an agent's stderr line)", () => {
      const { logger, lines } = capture(secrets);
      for (const secret of secrets) {
        for (let n = 440; n <= 500; n++) {
          const raw = `${lead(n)}${secret} and the rest of the line`;
          logger.warn({ line: raw }, "field cut by the logger");
          logger.warn({ line: untrustedText(raw, { maxChars: 500 }) }, "agent stderr");
        }
      }
      for (const line of lines) for (const secret of secrets) expect(shownFragments(line, secret, "and the rest of the line"), line).toEqual([]);
      // Not vacuous: lines whose cut fell inside a secret end with its mask, then the marker.
      expect(lines.filter((line) => /\*\*\*…\(\+\d+ chars\)/.test(line)).length).toBeGreaterThan(40);
    });

    it("a URL's user info cut short is masked with its authority; one cut after it keeps the host", () => {
      const { logger, lines } = capture([]);
      for (let n = 440; n <= 500; n++) logger.info({ url: `${lead(n)}https://bob:hunter2pass@h.example.com/path` }, "x");
      for (const line of lines) expect(shownFragments(line, "hunter2pass"), line).toEqual([]);
      expect(lines.some((line) => line.includes("https://***…(+"))).toBe(true);
      expect(lines.some((line) => /https:\/\/\*\*\*@h[\w.]*…\(\+/.test(line))).toBe(true);
    });

    it("leaves a cut that ends in no secret as it was", () => {
      const { logger, lines } = capture(secrets);
      logger.info({ line: `${lead(600)}Zq7` }, "x");
      expect(JSON.parse(lines[0] ?? "").line).toMatch(/^éx+…\(\+\d+ chars\)$/);
    });
  });

  it("leaves values shorter than 4 characters alone rather than garbling every line", () => {
    const { logger, lines } = capture(["abc"]);
    logger.info({ reason: "abc" }, "abc happened");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ msg: "abc happened", reason: "abc" });
  });
});
