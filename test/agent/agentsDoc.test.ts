import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { agentEnv } from "../../src/agent/agentSettings.js";
import * as kit from "../../src/agent/index.js";
import { parseConfigText } from "../../src/config/index.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const tomlBlocks = (text: string) => [...text.matchAll(/```toml\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");

describe("docs/agents.md", () => {
  const doc = read("docs/agents.md");

  it("every config example is one check-config accepts", () => {
    const blocks = [...tomlBlocks(doc), ...tomlBlocks(read("docs/cli.md")).filter((block) => block.includes("turnstream"))];
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    for (const block of blocks) expect(() => parseConfigText(block, { env: { OPENAI_API_KEY: "sk" } }), block).not.toThrow();
  });

  it("the bubble pairings in the examples match: envelope with structured, sequential with sequential", () => {
    for (const block of tomlBlocks(doc).filter((text) => text.includes('"agent"'))) {
      // The examples take the key from the environment, as a deployment would.
      const config = parseConfigText(block, { env: { OPENAI_API_KEY: "sk-test" } });
      const mode = config.agent.args[config.agent.args.indexOf("--mode") + 1];
      expect(config.delivery.mode).toBe(mode === "envelope" ? "structured" : "sequential");
    }
  });

  it("documents every setting of turnstream agent", () => {
    for (const variable of Object.values(agentEnv)) expect(doc).toContain(`| \`${variable}\` |`);
  });

  it("has the pairing table: three delivery modes by three reply modes", () => {
    for (const mode of ["text", "structured", "sequential"]) expect(doc).toMatch(new RegExp(`^\\| \`${mode}\` \\|`, "m"));
    expect(doc.match(/❌/g)?.length).toBeGreaterThanOrEqual(4);
  });

  it("names the real agents and how to launch them", () => {
    for (const launch of ["@agentclientprotocol/claude-agent-acp", "@agentclientprotocol/codex-acp", 'args = ["--acp"]', "turnstream agent"]) expect(doc).toContain(launch);
  });

  it("lists the kit's exports", () => {
    const ask = ["askTool", "askInputSchema", "askAnswers", "ASK_TOOL_NAME", "turnstreamEntry", "connectTurnstream", "forwardAsk"];
    for (const name of ["replyToolSchema", "renderEnvelope", "wrapPlainText", "replyPromptAppendix", "BubbleSink", "bubbleToolResult", "bubblesFromToolInput", ...ask]) {
      expect(Object.keys(kit)).toContain(name);
      expect(doc).toContain(`\`${name}`);
    }
  });
});
