import type { ReplyToolOptions } from "../agent/replyTool.js";
import type { Config } from "../config/index.js";

/** What the `reply` tool offers a session: the agent kit's tool options, and the envelope schema its calls render to. */
export interface ReplyToolSpec extends ReplyToolOptions {
  /** `[delivery] schema`: the envelope a structured call is delivered as. */
  readonly schema: string;
}

/** The MCP server's name in `mcpServers`: agents prefix the tool with it (`mcp__turnstream__reply`). */
export const REPLY_SERVER_NAME = "turnstream";

/**
 * The `reply` tool `[delivery]` calls for: structured mode offers one terminal call rendered as an
 * envelope, sequential mode calls sent on arrival; text mode, or `reply_tool = "off"`, none.
 */
export function replyToolSpecOf(delivery: Config["delivery"]): ReplyToolSpec | undefined {
  if (delivery.reply_tool === "off" || delivery.mode === "text") return undefined;
  return {
    mode: delivery.mode === "structured" ? "envelope" : "sequential",
    maxBubbles: delivery.max_bubbles,
    maxBubbleChars: delivery.max_bubble_chars,
    schema: delivery.schema,
  };
}
