import { z } from "zod";
import type { AgentFile } from "../../operators/delivery/agentEvent.js";
import type { ChatTool } from "./replyTool.js";

/** The tool's name, as the model sees it (`mcp__turnstream__send_file`). */
export const SEND_FILE_TOOL_NAME = "send_file";

/**
 * The `send_file` tool's input: a file by `path` (relative to the session's working directory), or
 * its bytes as base64 `data` with a `filename`; an optional caption. It names no chat: the file goes
 * to the conversation of the turn that calls it. Strict: unknown fields are refused.
 */
export const sendFileInputSchema = z
  .strictObject({
    path: z.string().min(1).max(4096).optional().describe("The file, relative to your working directory. Give this or data."),
    data: z.string().min(1).optional().describe("The file's bytes, base64. Give this (with filename) or path."),
    filename: z.string().min(1).max(255).optional().describe("The name the chat shows. Required with data; with path, the file's own name by default."),
    caption: z.string().max(1024).optional().describe("A short text shown with the file."),
  })
  .refine((input) => (input.path === undefined) !== (input.data === undefined), { message: "give exactly one of path and data" })
  .refine((input) => input.data === undefined || input.filename !== undefined, { message: "data needs a filename" });

export type SendFileInput = z.output<typeof sendFileInputSchema>;

export const SEND_FILE_TOOL_DESCRIPTION =
  "Send a file to the person in the chat (an image, a PDF, a patch, …), shown with your reply at this point of it. " +
  "Give a path inside your working directory, or the bytes as base64 with a filename; optionally a caption. " +
  "Returns whether the file was accepted; a file over the chat's size limit is refused.";

/** The `send_file` tool as an OpenAI-compatible chat-completions `tools[]` entry. */
export function sendFileTool(): ChatTool {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(sendFileInputSchema) as Record<string, unknown>;
  return { type: "function", function: { name: SEND_FILE_TOOL_NAME, description: SEND_FILE_TOOL_DESCRIPTION, parameters } };
}

/** A checked `send_file` input as the file the turn resolves (untrusted still: the turn checks the path and the size). */
export function sendFileRequest(input: SendFileInput): AgentFile {
  const described = { ...(input.filename === undefined ? {} : { name: input.filename }), ...(input.caption === undefined || input.caption === "" ? {} : { caption: input.caption }) };
  if (input.data !== undefined) return { ...described, source: { kind: "base64", data: input.data } };
  return { ...described, source: { kind: "path", path: input.path ?? "" } };
}
