import { z } from "zod";
import type { AgentEvent } from "../../operators/delivery/agentEvent.js";
import { redactSecrets, type Redact } from "../../operators/delivery/text/redactSecrets.js";
import { toolTitleText } from "../../operators/delivery/status/toolSummary.js";
import { untrustedName } from "../../operators/ingress/untrustedText.js";
import { isJsonObject } from "../../operators/ingress/frames/jsonObject.js";
import { agentFileContent } from "./agentFileContent.js";

const textContent = z.looseObject({ type: z.literal("text"), text: z.string() });
const toolStatus = z.enum(["pending", "in_progress", "completed", "failed"]);

const textChunk = z.looseObject({ content: textContent, messageId: z.string().nullish() });
const toolCall = z.looseObject({ toolCallId: z.string(), title: z.string(), kind: z.string().optional(), status: toolStatus.optional() });
const toolCallUpdate = z.looseObject({ toolCallId: z.string(), title: z.string().nullish(), status: toolStatus.nullish() });
const plan = z.looseObject({
  entries: z.array(z.looseObject({ content: z.string(), priority: z.string(), status: z.string() })),
});
const configUpdate = z.looseObject({ configOptions: z.array(z.unknown()) });

/** `params` of a `session/update` notification; other fields are kept as they came. */
export interface SessionUpdateParams {
  readonly sessionId: string;
  readonly update: { readonly sessionUpdate: string } & Record<string, unknown>;
  readonly [field: string]: unknown;
}

/**
 * `params` of a `session/update` notification. A guard, not an object schema: one per agent update,
 * and an object schema copies the params and the update (~0.5 KB) where nothing needs a copy.
 */
export const sessionUpdateParams = z.custom<SessionUpdateParams>(
  (params) => isJsonObject(params) && typeof params.sessionId === "string" && isJsonObject(params.update) && typeof params.update.sessionUpdate === "string",
);

/**
 * The typed event for one `update`, or `undefined` for an `openab_message` without text (as
 * OpenAB: no text, no bubble). Anything unknown or malformed becomes `unknown` — never dropped.
 * A tool title is made as users see it in the tool summary (`toolTitleText`: cleaned, secrets
 * masked by `redact`, flattened, bounded); the reply's text is content and never touched.
 */
export function classifyUpdate(update: { readonly sessionUpdate: string } & Record<string, unknown>, redact: Redact = redactSecrets): AgentEvent | undefined {
  const toolTitle = (title: string): string => toolTitleText(title, redact);
  const unknown = (): AgentEvent => ({ type: "unknown", sessionUpdate: update.sessionUpdate, raw: update });
  switch (update.sessionUpdate) {
    case "agent_message_chunk": {
      const chunk = textChunk.safeParse(update);
      if (!chunk.success) {
        // An image or a file the agent made for the chat: delivered at its place in the reply.
        const file = agentFileContent(update.content);
        return file === undefined ? unknown() : { type: "file", file };
      }
      const { text } = chunk.data.content;
      const messageId = chunk.data.messageId ?? undefined;
      return messageId === undefined ? { type: "text", text } : { type: "text", text, messageId };
    }
    case "agent_thought_chunk": {
      const chunk = textChunk.safeParse(update);
      return chunk.success ? { type: "thought", text: chunk.data.content.text } : unknown();
    }
    case "tool_call": {
      const call = toolCall.safeParse(update);
      if (!call.success) return unknown();
      const { toolCallId: id, kind, status } = call.data;
      const title = toolTitle(call.data.title);
      const input: unknown = update.rawInput;
      return { type: "tool_start", id, title, ...(kind === undefined ? {} : { kind }), ...(status === undefined ? {} : { status }), ...(input === undefined ? {} : { input }) };
    }
    case "tool_call_update": {
      const call = toolCallUpdate.safeParse(update);
      if (!call.success) return unknown();
      const { toolCallId: id, status } = call.data;
      const title = call.data.title == null ? undefined : toolTitle(call.data.title);
      if (status === "completed" || status === "failed") {
        return { type: "tool_done", id, status, ...(title === undefined ? {} : { title }) };
      }
      return { type: "tool_update", id, ...(title === undefined ? {} : { title }), ...(status == null ? {} : { status }) };
    }
    case "plan": {
      const parsed = plan.safeParse(update);
      return parsed.success ? { type: "plan", entries: parsed.data.entries } : unknown();
    }
    case "config_option_update": {
      const parsed = configUpdate.safeParse(update);
      return parsed.success ? { type: "config_update", configOptions: parsed.data.configOptions } : unknown();
    }
    case "openab_message": {
      // Read by hand (one per bubble; an object schema copies the update and its content). `id` is
      // for log correlation only: a bubble with text is never lost to a malformed id.
      const { id, content } = update;
      if (!isJsonObject(content) || typeof content.text !== "string") return undefined;
      return { type: "openab_message", id: typeof id === "string" ? untrustedName(id) : "", text: content.text };
    }
    default:
      return unknown();
  }
}
