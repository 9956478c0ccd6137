import { describe, expect, it } from "vitest";
import { replyPromptAppendix } from "../../src/agent/replyPrompt.js";

describe("replyPromptAppendix", () => {
  it("system_prompt_appendix_names_the_tool_and_the_cap", () => {
    for (const mode of ["envelope", "sequential"] as const) {
      const appendix = replyPromptAppendix({ mode, maxBubbles: 3 });
      expect(appendix.startsWith("## Replying\n")).toBe(true);
      expect(appendix).toContain("`reply`");
      expect(appendix).toContain("at most 3 messages");
    }
    expect(replyPromptAppendix({ mode: "envelope", maxBubbles: 1 })).toContain("at most 1 message ");
  });

  it("states the rules: one message by default, no split sentence or copy-ready block, no premature success", () => {
    for (const mode of ["envelope", "sequential"] as const) {
      const appendix = replyPromptAppendix({ mode, maxBubbles: 4 });
      expect(appendix).toContain("Reply in one message unless");
      expect(appendix).toMatch(/Never split a sentence/);
      expect(appendix).toMatch(/block meant to be copied/);
      expect(appendix).toMatch(/Never say an action succeeded until a tool result has confirmed it/);
    }
  });

  it("envelope mode: silence is empty messages with next silent, and reply ends the turn", () => {
    const appendix = replyPromptAppendix({ mode: "envelope", maxBubbles: 4 });
    expect(appendix).toContain('empty `messages` and `next: "silent"`');
    expect(appendix).toContain("ends your turn");
  });

  it("envelope mode names the per-message length limit when there is one", () => {
    expect(replyPromptAppendix({ mode: "envelope", maxBubbles: 4, maxBubbleChars: 1200 })).toContain("Keep each message under 1200 characters.");
    expect(replyPromptAppendix({ mode: "envelope", maxBubbles: 4 })).not.toContain("characters");
    expect(replyPromptAppendix({ mode: "sequential", maxBubbles: 4, maxBubbleChars: 1200 })).not.toContain("characters");
  });

  it("sequential mode: no next field; silence is never calling reply", () => {
    const appendix = replyPromptAppendix({ mode: "sequential", maxBubbles: 4 });
    expect(appendix).not.toContain("next");
    expect(appendix).toContain("do not call `reply`");
    expect(appendix).toContain("in the whole turn");
  });
});
