import type { Stack } from "./stack.js";

// The `ask` tool's end-to-end runs (test/e2e/askTool*.test.ts): the MCP-client agent that calls it,
// the gateway it talks to, and the answers its `ask2` script gets.

/** An ACP agent that is a real MCP client (the official SDK's Client); its `ask2` script calls `ask`. */
export const mcpAgentPath = new URL("../../fixtures/agents/mcp-agent.mjs", import.meta.url).pathname;

/** A gateway whose hello says it acks sends and edits: an answered question's message is edited. */
export const negotiated = { hello: { capabilities: { telegram: { send_ack: true, edit_ack: true, can_edit: true } } } };

export const DEPLOY = { header: "Deploy", question: "Which environment should I deploy to?" };
export const CHECKS = { header: "Checks", question: "Which checks should run first?" };

/** `2` to the first question, `1, 3` to the second, both from Ann (the requester). */
export const ANSWERED = {
  answers: [
    { ...DEPLOY, answered: true, selected: ["production"], answered_by: "Ann" },
    { ...CHECKS, answered: true, selected: ["lint", "e2e"], answered_by: "Ann" },
  ],
};

/** The agent's recorded `ask` results (`ask-result <sid> <json>`), parsed. */
export function askResults(s: Stack): { isError: boolean; structured?: unknown }[] {
  return s
    .agentEvents()
    .filter((line) => line.startsWith("ask-result "))
    .map((line) => JSON.parse(line.slice(line.indexOf("{"))) as { isError: boolean; structured?: unknown });
}
