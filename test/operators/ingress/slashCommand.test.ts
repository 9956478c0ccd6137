import { describe, expect, it } from "vitest";
import {
  CANCEL_NO_TURN_REPLY,
  CANCEL_REPLY,
  cancelReply,
  RESET_NO_SESSION_REPLY,
  RESET_REPLY,
  resetReply,
  slashCommand,
} from "../../../operators/ingress/slashCommand.js";

describe("slashCommand", () => {
  it("matches /reset and /cancel on the trimmed text", () => {
    expect(slashCommand("/reset")).toBe("reset");
    expect(slashCommand("  /cancel\n")).toBe("cancel");
  });

  it("is exact: arguments, other commands, case and prose are not commands", () => {
    for (const text of ["/reset now", "/RESET", "please /reset", "/models", "/", "", "reset", "/cancel@mybot"]) {
      expect(slashCommand(text)).toBeUndefined();
    }
  });
});

describe("slash command replies (§8)", () => {
  it("has the exact reply strings", () => {
    expect(RESET_REPLY).toBe("🔄 Session reset. Start a new conversation!");
    expect(RESET_NO_SESSION_REPLY).toBe("⚠️ No active session to reset.");
    expect(CANCEL_REPLY).toBe("🛑 Cancel signal sent.");
    expect(CANCEL_NO_TURN_REPLY).toBe("⚠️ No active turn to cancel.");
  });

  it("words /reset for every outcome", () => {
    expect(resetReply({ sessionReset: true, dropped: 0 })).toBe("🔄 Session reset. Start a new conversation!");
    expect(resetReply({ sessionReset: false, dropped: 0 })).toBe("⚠️ No active session to reset.");
    expect(resetReply({ sessionReset: true, dropped: 3 })).toBe(
      "🔄 Session reset. Dropped 3 buffered message(s). Start a new conversation!",
    );
    expect(resetReply({ sessionReset: false, dropped: 1 })).toBe("🔄 Dropped 1 buffered message(s). No active session to reset.");
  });

  it("words /cancel for every outcome", () => {
    expect(cancelReply({ kind: "sent" })).toBe("🛑 Cancel signal sent.");
    expect(cancelReply({ kind: "no_turn" })).toBe("⚠️ No active turn to cancel.");
    expect(cancelReply({ kind: "failed", error: "agent is not responding" })).toBe("⚠️ agent is not responding");
  });
});
