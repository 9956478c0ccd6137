import { describe, expect, it } from "vitest";
import { isControlCommand } from "../../../operators/ingress/controlCommand.js";

describe("isControlCommand", () => {
  it("knows slash commands at the start", () => {
    for (const text of ["/reset", "/cancel now", "  /status", "/reset@my_bot"]) expect(isControlCommand(text), text).toBe(true);
    for (const text of ["/", "/1abc", "say /reset", "//reset"]) expect(isControlCommand(text), text).toBe(false);
  });

  it("knows abort phrases lower-cased, with trailing punctuation and runs of whitespace", () => {
    for (const text of ["stop", "STOP!", "  Please   stop  ", "do not do that.", "Halt…", "esc", "stop run?!", "Interrupt"]) {
      expect(isControlCommand(text), text).toBe(true);
    }
  });

  it("is false for ordinary text, whatever letter it starts with", () => {
    for (const text of ["", "   ", "stopping soon", "please don't stop", "hello", "Ünicode", "İnterrupt", "exit strategy", "42"]) {
      expect(isControlCommand(text), text).toBe(false);
    }
  });

  it("stays linear on a megabyte of text", () => {
    expect(isControlCommand(`s${"x".repeat(1_000_000)}`)).toBe(false);
    expect(isControlCommand(`q${" ".repeat(1_000_000)}q`)).toBe(false);
  });
});
