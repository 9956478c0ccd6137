import { z } from "zod";
import { ModelRequestError } from "./errors.js";
import type { ChatTool } from "./replyTool.js";

/** A function call the model asked for; `arguments` is a JSON string, as the API sends it. */
export interface ToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
}

/** One message of an OpenAI-compatible chat-completions conversation. */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | AssistantMessage
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

/** The one thing the agent needs from a model: the next assistant message. */
export interface ChatModel {
  complete(messages: readonly ChatMessage[], tools: readonly ChatTool[], signal: AbortSignal): Promise<AssistantMessage>;
}

export interface ChatCompletionsOptions {
  /** e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer …` when set (local servers often need none). */
  readonly apiKey?: string;
  /** Per request. */
  readonly timeoutMs: number;
  /** Node's global `fetch` unless given. */
  readonly fetch?: typeof fetch;
}

const toolCallSchema = z.looseObject({
  id: z.string().optional(),
  function: z.looseObject({
    name: z.string(),
    // Some compatible servers send the arguments as an object rather than a JSON string.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  }),
});

const responseSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullable().optional(),
          tool_calls: z.array(toolCallSchema).nullable().optional(),
        }),
      }),
    )
    .min(1),
});

const detailChars = 300;

/**
 * A non-streaming OpenAI-compatible chat-completions client (Node's global `fetch`, no SDK).
 * Failures throw `ModelRequestError`; an abort of `signal` rejects with the abort reason.
 */
export function chatCompletions(options: ChatCompletionsOptions): ChatModel {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey !== undefined && options.apiKey !== "") headers.authorization = `Bearer ${options.apiKey}`;
  const timeoutSecs = options.timeoutMs / 1000;

  return {
    async complete(messages, tools, signal) {
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const body = JSON.stringify({ model: options.model, messages, tools, tool_choice: "auto" });
      let response: Response;
      try {
        response = await doFetch(url, { method: "POST", headers, body, signal: AbortSignal.any([signal, timeout]) });
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (timeout.aborted) throw new ModelRequestError("timeout", `model request timed out after ${timeoutSecs}s`, undefined, undefined, { cause: err });
        throw new ModelRequestError("network", "model request failed: could not reach the endpoint", undefined, undefined, { cause: err });
      }
      const text = await response.text().catch((err: unknown) => {
        if (signal.aborted) throw signal.reason;
        throw new ModelRequestError("network", "model request failed: the response was cut off", response.status, undefined, { cause: err });
      });
      if (!response.ok) {
        throw new ModelRequestError("http_status", `model request failed: HTTP ${response.status}`, response.status, text.slice(0, detailChars));
      }
      return assistantMessageFrom(text);
    },
  };
}

/** The first choice's message, with tool calls normalized (ids filled in, arguments as a string). */
export function assistantMessageFrom(text: string): AssistantMessage {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ModelRequestError("bad_response", "model request failed: the response is not JSON", undefined, text.slice(0, detailChars), { cause: err });
  }
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    throw new ModelRequestError("bad_response", "model request failed: unexpected response shape", undefined, parsed.error.message.slice(0, detailChars));
  }
  const message = parsed.data.choices[0]?.message;
  const calls = (message?.tool_calls ?? []).map((call, index): ToolCall => {
    const args = call.function.arguments;
    return {
      id: call.id ?? `call_${index + 1}`,
      type: "function",
      function: { name: call.function.name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) },
    };
  });
  return { role: "assistant", content: message?.content ?? null, ...(calls.length === 0 ? {} : { tool_calls: calls }) };
}
