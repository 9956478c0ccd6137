import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { ScriptedModelServer, type ScriptedFailure, type Step } from "./scriptedModelServer.js";

/** One chat-completions request the fake received, body parsed. */
export interface RecordedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: {
    model: string;
    messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }[];
    tools: { type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
    [key: string]: unknown;
  };
}

/** A scripted tool call; `arguments` is sent as a JSON string (objects are stringified). */
export interface ScriptedCall {
  readonly name: string;
  readonly arguments: unknown;
  readonly id?: string;
}

/** What the fake answers one request with. */
export type ScriptedResponse = ChatReply | ScriptedFailure;

/** A reply the fake writes itself (the script's failures the shared server answers). */
export type ChatReply = { readonly content?: string | null; readonly toolCalls?: readonly ScriptedCall[] };

/** A scripted step: a fixed response, or one computed (and possibly delayed) from the request. */
export type ScriptStep = Step<RecordedRequest, ChatReply>;

/** `reply` tool call. */
export const replyCall = (messages: readonly string[], extra: Record<string, unknown> = {}, id?: string): ScriptedCall => ({
  name: "reply",
  arguments: { messages, ...extra },
  ...(id === undefined ? {} : { id }),
});
/** `lookup` tool call. */
export const lookupCall = (query: string, id?: string): ScriptedCall => ({ name: "lookup", arguments: { query }, ...(id === undefined ? {} : { id }) });
/** An assistant message that calls tools. */
export const calls = (...toolCalls: ScriptedCall[]): ScriptedResponse => ({ content: null, toolCalls });
/** An assistant message in plain text, no tool calls. */
export const says = (content: string): ScriptedResponse => ({ content });

/**
 * A local OpenAI-compatible chat-completions server for tests: `POST <url>/chat/completions`
 * answers with the next scripted step (an HTTP 500 naming the request once the script runs out)
 * and records every request, so tests can assert the tools, messages and tool results sent.
 */
export class FakeChatCompletions extends ScriptedModelServer<RecordedRequest, ChatReply> {
  #callIds = 0;

  static start(script: ScriptStep[] = []): Promise<FakeChatCompletions> {
    return new FakeChatCompletions(script).listen();
  }

  protected async answer(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<void> {
    if (method !== "POST" || url !== "/v1/chat/completions") {
      res.writeHead(404).end("not found");
      return;
    }
    const request: RecordedRequest = { path: url, headers, body: JSON.parse(raw) as RecordedRequest["body"] };
    const response = await this.scriptedReply(request, res);
    if (response === undefined) return;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(this.#completion(response, request.body.model)));
  }

  #completion(response: { content?: string | null; toolCalls?: readonly ScriptedCall[] }, model: string): Record<string, unknown> {
    const toolCalls = (response.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++this.#callIds}`,
      type: "function",
      function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
    }));
    return {
      id: `chatcmpl-${this.requests.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: response.content ?? null, ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }) },
          finish_reason: toolCalls.length === 0 ? "stop" : "tool_calls",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  }
}
