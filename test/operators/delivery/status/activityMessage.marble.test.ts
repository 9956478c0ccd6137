import { concat, from, NEVER } from "rxjs";
import { describe, expect, it } from "vitest";
import { activityMessage, ACTIVITY_MAX_ENTRIES, type ActivityOptions } from "../../../../operators/delivery/status/activityMessage.js";
import type { AgentEvent } from "../../../../operators/delivery/agentEvent.js";
import { chatRedaction } from "../../../../src/log/secretScrubber.js";
import { testScheduler } from "../../../helpers/marbles.js";

const start = (id: string, title: string, input?: unknown): AgentEvent => ({ type: "tool_start", id, title, ...(input === undefined ? {} : { input }) });
const done = (id: string, status: "completed" | "failed" = "completed"): AgentEvent => ({ type: "tool_done", id, status });
const options: ActivityOptions = { toolDisplay: "full", limit: 4096 };

describe("activityMessage", () => {
  it("opens at the first tool, edits as tools start and finish (at most every 1.5 s), closes with a summary", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // a starts at 100 (open); a done at 200 and b starts at 300 → one edit at 1600; b done at 2000 → edit at 3100; end at 4000.
      const events = cold<AgentEvent>("100ms a 99ms b 99ms c 1699ms d 1999ms |", {
        a: start("1", "Read", { file_path: "a.ts" }),
        b: done("1"),
        c: start("2", "Bash", { command: "npm test" }),
        d: done("2", "failed"),
      });
      expectObservable(events.pipe(activityMessage(options))).toBe("100ms o 1499ms x 1499ms y 899ms (z|)", {
        o: { kind: "open", text: "📖 Reading a.ts …" },
        x: { kind: "edit", text: "📖 Reading a.ts\n🖥️ Running npm test …" },
        y: { kind: "edit", text: "📖 Reading a.ts\n🖥️ Running npm test ✗" },
        z: { kind: "close", summary: "🔧 2 tool calls (1 failed)" },
      });
    });
  });

  it("edits at once when the last change is older than the interval", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events = cold<AgentEvent>("a 1999ms b |", { a: start("1", "Read", { path: "x" }), b: done("1") });
      expectObservable(events.pipe(activityMessage(options))).toBe("o 1999ms x (z|)", {
        o: { kind: "open", text: "📖 Reading x …" },
        x: { kind: "edit", text: "📖 Reading x" },
        z: { kind: "close", summary: "🔧 1 tool call" },
      });
    });
  });

  it("collapses consecutive repeats as (×N), never a repeat further back", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const read = { path: "a.ts" };
      const events = cold<AgentEvent>("(abcdefgh) 2000ms |", {
        a: start("1", "Read", read), b: done("1"), c: start("2", "Read", read), d: done("2"),
        e: start("3", "Read", read), f: done("3"), g: start("4", "Bash", { command: "npm test" }), h: start("5", "Read", read),
      });
      // The group takes frames 0–9; the trailing edit lands at 1500; the turn ends at 2010.
      expectObservable(events.pipe(activityMessage(options))).toBe("o 1499ms x 509ms (z|)", {
        o: { kind: "open", text: "📖 Reading a.ts …" },
        x: { kind: "edit", text: "📖 Reading a.ts (×3)\n🖥️ Running npm test …\n📖 Reading a.ts …" },
        z: { kind: "close", summary: "🔧 5 tool calls" },
      });
    });
  });

  it("masks secrets with the injected redaction before any cut: the AWS key's tail never shows (issue 36 (c))", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const redact = chatRedaction(["Zq7XenvK-0c3d55-Wq"]);
      const events = cold<AgentEvent>("a 9ms b 1999ms |", {
        a: start("1", "Bash", { command: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls" }),
        b: start("2", "call_api", { key: "Zq7XenvK-0c3d55-Wq" }),
      });
      expectObservable(events.pipe(activityMessage({ ...options, redact }))).toBe("o 1499ms x 509ms (z|)", {
        o: { kind: "open", text: "🖥️ Running AWS_SECRET_ACCESS_KE…redacted] aws s3 ls …" },
        x: { kind: "edit", text: "🖥️ Running AWS_SECRET_ACCESS_KE…redacted] aws s3 ls …\n🔧 Call api *** …" },
        z: { kind: "close", summary: "🔧 2 tool calls" },
      });
    });
  });

  it("a turn without tools produces nothing", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<AgentEvent>("a 10ms |", { a: { type: "text", text: "hi" } }).pipe(activityMessage(options))).toBe("11ms |");
    });
  });

  it("under tool_display = compact shows one count line", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      // Read starts at 0 (open), Bash at 10 (edit due at 1500), the turn ends at 2000.
      const events = cold<AgentEvent>("a 9ms b 1989ms |", { a: start("1", "Read"), b: start("2", "Bash") });
      expectObservable(events.pipe(activityMessage({ ...options, toolDisplay: "compact" }))).toBe("o 1499ms x 499ms (z|)", {
        o: { kind: "open", text: "🔧 1 tool call, 1 running" },
        x: { kind: "edit", text: "🔧 2 tool calls, 2 running" },
        z: { kind: "close", summary: "🔧 2 tool calls" },
      });
    });
  });

  it("keeps at most 512 lines, dropping the oldest (mono-agent's 600-line vector)", () => {
    testScheduler().run(({ expectObservable }) => {
      const events = from(Array.from({ length: 600 }, (_, i) => start(String(i), `step_${i}`)));
      const lines = Array.from({ length: 512 }, (_, i) => `🔧 Step ${i + 88} …`).join("\n");
      // Everything arrives at once: open with the first call, then one edit at 1500 with the last 512.
      expectObservable(concat(events, NEVER).pipe(activityMessage({ ...options, limit: 100_000 }))).toBe("o 1499ms x", {
        o: { kind: "open", text: "🔧 Step 0 …" },
        x: { kind: "edit", text: lines },
      });
    });
    expect(ACTIVITY_MAX_ENTRIES).toBe(512);
  });
});
