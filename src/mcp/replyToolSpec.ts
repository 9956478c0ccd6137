import type { ReplyToolOptions } from "../agent/replyTool.js";
// One spelling of the server's name: the agent kit finds the entry by it.
import { TURNSTREAM_SERVER_NAME } from "../agent/turnstreamServer.js";
import type { Config } from "../config/index.js";

/** What the `reply` tool offers a session: the agent kit's tool options, and the envelope schema its calls render to. */
export interface ReplyToolSpec extends ReplyToolOptions {
  /** `[delivery] schema`: the envelope a structured call is delivered as. */
  readonly schema: string;
  /**
   * Whether the server offers `reply` (default true). False in text mode or under `reply_tool =
   * "off"`: the server then offers only `ask` and `send_file`, which every delivery mode has.
   */
  readonly reply?: boolean;
  /** `[agent] ask_timeout_secs`, in ms: how long one `ask` call waits for all its answers (default 600 s). */
  readonly askTimeoutMs?: number;
  /** How often a waiting `ask` call sends its client a progress notification (default 15 s; not a config key). */
  readonly askProgressMs?: number;
}

/** The MCP server's name in `mcpServers`: agents prefix the tool with it (`mcp__turnstream__reply`). */
export const REPLY_SERVER_NAME = TURNSTREAM_SERVER_NAME;

/**
 * The session's `turnstream` MCP server as `[delivery]` and `[agent]` call for it: the `reply` tool
 * in structured mode (one terminal call rendered as an envelope) and sequential mode (calls sent
 * on arrival), none in text mode or under `reply_tool = "off"`; the `ask` and `send_file` tools in every mode.
 */
export function replyToolSpecOf(delivery: Config["delivery"], agent?: Pick<Config["agent"], "ask_timeout_secs">): ReplyToolSpec {
  return {
    mode: delivery.mode === "structured" ? "envelope" : "sequential",
    maxBubbles: delivery.max_bubbles,
    maxBubbleChars: delivery.max_bubble_chars,
    schema: delivery.schema,
    reply: delivery.reply_tool !== "off" && delivery.mode !== "text",
    askTimeoutMs: (agent?.ask_timeout_secs ?? 600) * 1000,
  };
}
