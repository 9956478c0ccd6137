import { describe, expect, it } from "vitest";
import { composeDisplay, composeStreamingDisplay, renderStreamingToolSummary, renderToolSummary, sanitizeToolTitle, toolTitleText } from "../../../../operators/delivery/status/toolSummary.js";
import type { ToolEntry, ToolState } from "../../../../operators/delivery/turnTranscript.js";
import { chatRedaction } from "../../../../src/log/secretScrubber.js";
import { expectLinear } from "../../../helpers/linearTime.js";

const tool = (id: string, title: string, state: ToolState): ToolEntry => ({ id, title, state });

describe("renderToolSummary", () => {
  it("renders one line per entry with its state icon; running ends in ...", () => {
    const tools = [tool("1", "grep", "completed"), tool("2", "curl", "failed"), tool("3", "npm install", "running")];
    expect(renderToolSummary(tools, "full")).toBe("✅ `grep`\n❌ `curl`\n🔧 `npm install`...\n");
  });

  it("renders nothing for no tools or mode none", () => {
    expect(renderToolSummary([], "full")).toBe("");
    expect(renderToolSummary([], "compact")).toBe("");
    expect(renderToolSummary([tool("1", "grep", "completed")], "none")).toBe("");
  });

  it("groups consecutive same-title same-state entries with (×N), before the running ...", () => {
    const tools = [
      tool("1", "ToolSearch", "completed"),
      tool("2", "ToolSearch", "completed"),
      tool("3", "ToolSearch", "completed"),
      tool("4", "curl", "running"),
      tool("5", "curl", "running"),
    ];
    expect(renderToolSummary(tools, "full")).toBe("✅ `ToolSearch` (×3)\n🔧 `curl` (×2)...\n");
  });

  it("never groups across another entry: a running call between two finished ones splits them", () => {
    const tools = [tool("1", "ToolSearch", "completed"), tool("2", "Bash", "running"), tool("3", "ToolSearch", "completed")];
    expect(renderToolSummary(tools, "full")).toBe("✅ `ToolSearch`\n🔧 `Bash`...\n✅ `ToolSearch`\n");
  });

  it("groups sanitized titles, so titles that render the same group together", () => {
    const tools = [tool("1", "a\nb", "completed"), tool("2", "a ; b", "completed")];
    expect(renderToolSummary(tools, "full")).toBe("✅ `a ; b` (×2)\n");
  });

  it("compact: one count line listing only the non-zero states, in done · failed · running order", () => {
    const tools = [tool("1", "a", "running"), tool("2", "b", "completed"), tool("3", "c", "failed"), tool("4", "d", "completed")];
    expect(renderToolSummary(tools, "compact")).toBe("✅ 2 · ❌ 1 · 🔧 1 tool(s)\n");
    expect(renderToolSummary([tool("1", "a", "failed")], "compact")).toBe("❌ 1 tool(s)\n");
  });
});

describe("sanitizeToolTitle", () => {
  it("removes \\r, turns \\n into ' ; ' and backticks into quotes", () => {
    expect(sanitizeToolTitle("cat `x`\r\nand y")).toBe("cat 'x' ; and y");
  });
});

// Upstream `compose_display_*` tests (final rendering; the streaming variants are not built).
describe("composeDisplay", () => {
  it("compose_display_full_shows_complete_title", () => {
    const out = composeDisplay([tool("1", "curl -s https://example.com", "completed")], "done", "full");
    expect(out).toBe("✅ `curl -s https://example.com`\n\ndone");
  });

  it("compose_display_compact_shows_count_summary", () => {
    const tools = [
      tool("1", "curl -s https://example.com", "completed"),
      tool("2", "grep -r pattern src/", "completed"),
      tool("3", "cat /etc/hosts", "failed"),
    ];
    expect(composeDisplay(tools, "done", "compact")).toBe("✅ 2 · ❌ 1 tool(s)\n\ndone");
  });

  it("compose_display_compact_shows_running_count", () => {
    const tools = [tool("1", "curl", "completed"), tool("2", "npm install", "running")];
    expect(composeDisplay(tools, "", "compact")).toBe("✅ 1 · 🔧 1 tool(s)\n\n");
  });

  it("compose_display_full_collapses_consecutive_duplicates", () => {
    const tools = [tool("1", "ToolSearch", "completed"), tool("2", "ToolSearch", "completed"), tool("3", "ToolSearch", "completed")];
    expect(composeDisplay(tools, "done", "full")).toBe("✅ `ToolSearch` (×3)\n\ndone");
  });

  it("compose_display_full_preserves_order_across_different_titles", () => {
    const tools = [tool("1", "grep", "completed"), tool("2", "curl", "completed"), tool("3", "grep", "completed")];
    expect(composeDisplay(tools, "done", "full")).toBe("✅ `grep`\n✅ `curl`\n✅ `grep`\n\ndone");
  });

  it("compose_display_full_groups_mixed_state_runs_separately", () => {
    const tools = [tool("1", "curl", "completed"), tool("2", "curl", "failed"), tool("3", "curl", "failed")];
    expect(composeDisplay(tools, "done", "full")).toBe("✅ `curl`\n❌ `curl` (×2)\n\ndone");
  });

  it("compose_display_none_hides_tools", () => {
    expect(composeDisplay([tool("1", "curl -s https://example.com", "completed")], "response text", "none")).toBe("response text");
  });

  it("trims trailing whitespace from the body (Rust's set), with or without tools", () => {
    expect(composeDisplay([], "answer \n\n\u0085", "full")).toBe("answer");
    expect(composeDisplay([], "  \n", "full")).toBe("");
    expect(composeDisplay([tool("1", "a", "completed")], "x\n", "full")).toBe("✅ `a`\n\nx");
  });
});

describe("renderStreamingToolSummary (while a reply streams)", () => {
  it("lists finished groups, then running ones, while there are at most 3 of each", () => {
    const tools = [tool("1", "Read", "completed"), tool("2", "Read", "completed"), tool("3", "Grep", "failed"), tool("4", "Run", "running")];
    expect(renderStreamingToolSummary(tools, "full")).toBe("✅ `Read` (×2)\n❌ `Grep`\n🔧 `Run`...\n");
  });

  it("collapses more than 3 finished groups into one count line of calls", () => {
    const tools = [tool("1", "a", "completed"), tool("2", "b", "completed"), tool("3", "c", "failed"), tool("4", "d", "completed"), tool("5", "e", "running")];
    expect(renderStreamingToolSummary(tools, "full")).toBe("✅ 3 · ❌ 1 tool(s) completed\n🔧 `e`...\n");
  });

  it("shows more than 3 running groups as how many calls are hidden, then the last 3", () => {
    const tools = [tool("1", "a", "running"), tool("2", "a", "running"), tool("3", "b", "running"), tool("4", "c", "running"), tool("5", "d", "running")];
    expect(renderStreamingToolSummary(tools, "full")).toBe("🔧 2 more running\n🔧 `b`...\n🔧 `c`...\n🔧 `d`...\n");
  });

  it("is the final summary under compact and none", () => {
    const tools = [tool("1", "a", "completed"), tool("2", "b", "running")];
    expect(renderStreamingToolSummary(tools, "compact")).toBe("✅ 1 · 🔧 1 tool(s)\n");
    expect(renderStreamingToolSummary(tools, "none")).toBe("");
  });

  it("composes as upstream: summary, a blank line, the text without trailing whitespace", () => {
    expect(composeStreamingDisplay([tool("1", "a", "running")], "so far  \n", "full")).toBe("🔧 `a`...\n\nso far");
    expect(composeStreamingDisplay([], "so far  \n", "full")).toBe("so far");
  });
});

// Issue 36 (a): real agents use the command as the title, so the summary showed its credentials.
describe("toolTitleText", () => {
  const title = "Run curl https://bob:T1tlePassw0rd@h.example.com/?access_token=TITLETOKEN42";

  it("redacts a title as activity previews are redacted, and the summary shows it so", () => {
    const shown = toolTitleText(title);
    expect(shown).toBe("Run curl https://h.example.com/?access_token=[redacted]");
    expect(composeDisplay([tool("1", shown, "completed")], "done", "full")).toBe("✅ `Run curl https://h.example.com/?access_token=[redacted]`\n\ndone");
  });

  it("masks every secret the broker knows with the log's own scrubber, before it flattens the title", () => {
    const redact = chatRedaction(["Zq7XenvK-0c3d55-Wq"]);
    expect(toolTitleText("deploy\nwith `Zq7XenvK-0c3d55-Wq`", redact)).toBe("deploy ; with '***'");
  });

  it("bounds a 1 MB title to 500 chars in linear time, nothing of a secret left at the cut", () => {
    const title = (dashes: number) => `${"Run ".repeat(122)}AKIAIOSFODNN7EXAMPLE ${"x-".repeat(dashes)}`;
    const shown = toolTitleText(title(500_000));
    expect(shown.length).toBeLessThanOrEqual(500);
    expect(shown).not.toMatch(/AKIA|MPLE/);
    expectLinear(title, (long) => toolTitleText(long), 500_000);
  });
});
