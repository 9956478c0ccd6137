import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { ASK_TOOL_DESCRIPTION, ASK_TOOL_NAME, askInputSchema, askOutputSchema } from "../agent/askTool.js";
import { replyInputSchema, replyTool, REPLY_TOOL_NAME } from "../agent/replyTool.js";
import { SEND_FILE_TOOL_DESCRIPTION, SEND_FILE_TOOL_NAME, sendFileInputSchema } from "../agent/sendFileTool.js";
import { packageVersion } from "../version.js";
import type { AskProgress, ReplyBinding } from "./replyBinding.js";
import { refusedResult } from "./replyToolResult.js";
import { REPLY_SERVER_NAME, type ReplyToolSpec } from "./replyToolSpec.js";

/**
 * The MCP server one connection talks to: a `reply` tool whose input schema is the agent kit's
 * (`replyInputSchema`, the envelope's shape: `maxItems` = `max_bubbles`, `maxLength` =
 * `max_bubble_chars`), so the SDK — and a model provider that enforces tool schemas — rejects a
 * reply the broker could not deliver before it is made; beside it, in every mode, `ask` (questions
 * for the person in the chat) and `send_file` (a file for the chat). `binding` is the session the
 * connection's secret named; `undefined` (an unknown secret) refuses every call.
 */
export function createReplyServer(spec: ReplyToolSpec, binding: ReplyBinding | undefined, onUnknown: () => void): McpServer {
  const server = new McpServer({ name: REPLY_SERVER_NAME, version: packageVersion() });
  if (spec.reply !== false) {
    server.registerTool(
      REPLY_TOOL_NAME,
      { title: "Reply to the chat", description: replyTool(spec).function.description, inputSchema: replyInputSchema(spec) },
      (input): Promise<CallToolResult> => {
        if (binding !== undefined) return binding.call(input);
        onUnknown();
        return Promise.resolve(refusedResult("reply_tool_unknown_secret"));
      },
    );
  }
  server.registerTool(
    ASK_TOOL_NAME,
    { title: "Ask the person in the chat", description: ASK_TOOL_DESCRIPTION, inputSchema: askInputSchema, outputSchema: askOutputSchema },
    (input, extra): Promise<CallToolResult> => {
      if (binding !== undefined) return binding.ask(input, askProgress(extra));
      onUnknown();
      return Promise.resolve(refusedResult("reply_tool_unknown_secret"));
    },
  );
  server.registerTool(
    SEND_FILE_TOOL_NAME,
    { title: "Send a file to the chat", description: SEND_FILE_TOOL_DESCRIPTION, inputSchema: sendFileInputSchema },
    (input): Promise<CallToolResult> => {
      if (binding !== undefined) return binding.sendFile(input);
      onUnknown();
      return Promise.resolve(refusedResult("reply_tool_unknown_secret"));
    },
  );
  return server;
}

/**
 * Tells the client the call is alive while it waits for a person (`notifications/progress`, when
 * the call carried a progress token): an MCP client may reset its request timeout on progress.
 */
function askProgress(extra: RequestHandlerExtra<ServerRequest, ServerNotification>): AskProgress | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (progress, total, message) => {
    void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message } }).catch(() => undefined);
  };
}
