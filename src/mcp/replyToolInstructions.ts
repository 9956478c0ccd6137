import { replyPromptAppendix } from "../agent/replyPrompt.js";
import { REPLY_SERVER_NAME, type ReplyToolSpec } from "./replyToolSpec.js";

/**
 * What the first prompt of a session says about the tool (`[delivery] reply_tool_instructions`):
 * the agent kit's prompt appendix, plus where to find the tool — agents show it to the model under
 * their own names (`mcp__turnstream__reply`, `mcp_turnstream_reply`, a `reply` function in the
 * `mcp__turnstream` namespace).
 */
export function replyToolInstructions(spec: ReplyToolSpec): string {
  return `${replyPromptAppendix(spec)}\n\nThe \`reply\` tool is the one the \`${REPLY_SERVER_NAME}\` MCP server offers, whatever prefix your tools list shows it with.`;
}
