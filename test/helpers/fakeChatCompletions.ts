import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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
export type ScriptedResponse =
  | { readonly content?: string | null; readonly toolCalls?: readonly ScriptedCall[] }
  | { readonly status: number; readonly body: string };

/** A scripted step: a fixed response, or one computed (and possibly delayed) from the request. */
export type ScriptStep = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>);

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
export class FakeChatCompletions {
  readonly requests: RecordedRequest[] = [];
  readonly #script: ScriptStep[];
  readonly #server: Server;
  #callIds = 0;

  private constructor(server: Server, script: ScriptStep[]) {
    this.#server = server;
    this.#script = script;
  }

  static async start(script: ScriptStep[] = []): Promise<FakeChatCompletions> {
    const server = createServer();
    const fake = new FakeChatCompletions(server, [...script]);
    server.on("request", (req, res) => {
      let raw = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (raw += chunk));
      req.on("end", () => {
        void (async () => {
          if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
            res.writeHead(404).end("not found");
            return;
          }
          const request: RecordedRequest = { path: req.url, headers: req.headers, body: JSON.parse(raw) as RecordedRequest["body"] };
          fake.requests.push(request);
          const step = fake.#script.shift();
          const response = step === undefined ? { status: 500, body: `no scripted response for request ${fake.requests.length}` } : await (typeof step === "function" ? step(request) : step);
          if (res.destroyed) return; // the client gave up (a cancelled turn)
          if ("status" in response) {
            res.writeHead(response.status, { "content-type": "application/json" }).end(response.body);
            return;
          }
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(fake.#completion(response, request.body.model)));
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  /** The base URL to configure (`…/v1`). */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): void {
    this.#script.push(...steps);
  }

  /** Steps not used yet. */
  get remaining(): number {
    return this.#script.length;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
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
