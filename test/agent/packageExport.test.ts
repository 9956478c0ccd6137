import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("turnstream/agent (built dist/ through package.json exports)", () => {
  it("exports the agent-side kit", () => {
    const script = `const m = await import("turnstream/agent"); console.log(JSON.stringify(Object.keys(m).sort()));`;
    const names = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" })) as string[];
    expect(names).toEqual(
      expect.arrayContaining([
        "replyToolSchema",
        "replyTool",
        "renderEnvelope",
        "wrapPlainText",
        "bubblesFromToolInput",
        "replyPromptAppendix",
        "BubbleSink",
        "bubbleToolResult",
        "AgentConnection",
        "serveReferenceAgent",
        "ReplyInputError",
        "askTool",
        "askInputSchema",
        "askAnswers",
        "ASK_TOOL_NAME",
        "forwardAsk",
        "connectTurnstream",
        "turnstreamEntry",
      ]),
    );
  });

  it("renders the contract envelope from a real import", () => {
    const script = `const { renderEnvelope } = await import("turnstream/agent"); console.log(JSON.stringify(renderEnvelope({ messages: ["on it", "your flight moved to 8pm\\ngate B12"] }, { maxBubbles: 4 }).envelope));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(JSON.parse(out)).toStrictEqual({
      schema: "openab.turn.v1",
      messages: [
        { id: "bubble_1", text: "on it" },
        { id: "bubble_2", text: "your flight moved to 8pm\ngate B12" },
      ],
      next: { type: "stop" },
    });
  });
});
