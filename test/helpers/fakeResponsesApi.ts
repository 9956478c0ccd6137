import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { ScriptedModelServer, type ScriptedFailure, type Step } from "./scriptedModelServer.js";

/** A function the request offers the model, at top level or inside a namespace. */
export interface ResponsesFunctionTool {
  readonly type: "function";
  readonly name: string;
  readonly description?: string;
  readonly parameters?: Record<string, unknown>;
}

/** A tool group (codex offers each MCP server's tools as one, named `mcp__<server>`). */
export interface ResponsesNamespaceTool {
  readonly type: "namespace";
  readonly name: string;
  readonly description?: string;
  readonly tools: readonly ResponsesFunctionTool[];
}

export type ResponsesTool = ResponsesFunctionTool | ResponsesNamespaceTool | { readonly type: string; readonly name?: string };

/** One `POST /v1/responses` the fake received, body parsed. */
export interface ResponsesRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: {
    model: string;
    input: { type: string; [key: string]: unknown }[];
    tools?: ResponsesTool[];
    stream?: boolean;
    [key: string]: unknown;
  };
}

/** Any other request (a probe of another endpoint), answered minimally. */
export interface OtherRequest {
  readonly method: string;
  readonly path: string;
}

/** A function the model calls; `namespace` when the tool came from a namespace. `arguments` objects are stringified. */
export interface ScriptedCall {
  readonly name: string;
  readonly namespace?: string;
  readonly arguments: unknown;
  readonly callId?: string;
}

/** What the fake answers one request with: assistant text and/or function calls, or a plain HTTP error. */
export type ScriptedResponse = ResponsesReply | ScriptedFailure;

/** A reply the fake writes itself (the script's failures the shared server answers). */
export type ResponsesReply = { readonly text?: string; readonly calls?: readonly ScriptedCall[] };

/** A scripted step: a fixed response, or one computed (and possibly delayed) from the request. */
export type ScriptStep = Step<ResponsesRequest, ResponsesReply>;

/** A located function: its name and, when it sits in a namespace, the namespace's name. */
export interface FoundTool {
  readonly name: string;
  readonly namespace?: string;
  readonly tool: ResponsesFunctionTool;
}

/** Every function the request offers, namespaced ones included. */
export function offeredFunctions(request: ResponsesRequest): FoundTool[] {
  return (request.body.tools ?? []).flatMap((tool): FoundTool[] => {
    if (tool.type === "function") return [{ name: (tool as ResponsesFunctionTool).name, tool: tool as ResponsesFunctionTool }];
    if (tool.type === "namespace") {
      const group = tool as ResponsesNamespaceTool;
      return group.tools.filter((inner) => inner.type === "function").map((inner) => ({ name: inner.name, namespace: group.name, tool: inner }));
    }
    return [];
  });
}

/** The one offered function whose name (or namespace) contains `fragment`; undefined when none or several match. */
export function findTool(request: ResponsesRequest, fragment: string, namespaceFragment?: string): FoundTool | undefined {
  const matches = offeredFunctions(request).filter(
    (found) => found.name.includes(fragment) && (namespaceFragment === undefined || (found.namespace ?? "").includes(namespaceFragment)),
  );
  return matches.length === 1 ? matches[0] : undefined;
}

/** Assistant text, no calls. */
export const says = (text: string): ScriptedResponse => ({ text });
/** A response with no output items: the model stops (after a tool call whose result is all it wanted). */
export const stops = (): ScriptedResponse => ({});

/**
 * A step that calls the offered function whose name contains `fragment` (in a namespace whose
 * name contains `namespaceFragment`, when given), found in the request's own tool list so no
 * agent's naming is written into a test. Answers HTTP 400 naming what was offered when no single
 * tool matches, so the turn fails visibly instead of the model talking.
 */
export function callsTool(fragment: string, args: unknown, namespaceFragment?: string): ScriptStep {
  return (request) => {
    const found = findTool(request, fragment, namespaceFragment);
    if (found === undefined) {
      const offered = offeredFunctions(request).map((tool) => (tool.namespace === undefined ? tool.name : `${tool.namespace}.${tool.name}`));
      return { status: 400, body: JSON.stringify({ error: { message: `no single tool matching "${fragment}" offered; offered: ${offered.join(", ")}` } }) };
    }
    return { calls: [{ name: found.name, ...(found.namespace === undefined ? {} : { namespace: found.namespace }), arguments: args }] };
  };
}

const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };

/**
 * A local OpenAI Responses API for tests: `POST <url>/responses` streams the next scripted step as
 * server-sent events (response.created, output_item.added/deltas/done per item, response.completed
 * with usage), or an HTTP 500 naming the request once the script runs out. Every request is
 * recorded, so tests can assert the tools offered and the tool outputs sent back. `GET
 * <url>/models` answers an empty list; anything else 404, recorded in `otherRequests`.
 */
export class FakeResponsesApi extends ScriptedModelServer<ResponsesRequest, ResponsesReply> {
  readonly otherRequests: OtherRequest[] = [];
  #ids = 0;

  static start(script: ScriptStep[] = []): Promise<FakeResponsesApi> {
    return new FakeResponsesApi(script).listen();
  }

  protected async answer(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<void> {
    const path = url.split("?")[0] ?? url;
    if (method !== "POST" || path !== "/v1/responses") {
      this.otherRequests.push({ method, path });
      // OpenAI's list shape (`data`) and codex's (`models`), both empty: the agent keeps its bundled model metadata.
      if (method === "GET" && path === "/v1/models") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [], models: [] }));
      else res.writeHead(404).end("not found");
      return;
    }
    let body: ResponsesRequest["body"];
    try {
      body = JSON.parse(raw) as ResponsesRequest["body"];
    } catch {
      res.writeHead(400).end("body is not JSON");
      return;
    }
    const request: ResponsesRequest = { path, headers, body };
    const response = await this.scriptedReply(request, res);
    if (response === undefined) return;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const event of this.#events(response, body.model)) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }

  /** The stream for one response, in the order the real API sends it. */
  #events(response: { text?: string; calls?: readonly ScriptedCall[] }, model: string): { type: string; [key: string]: unknown }[] {
    const responseId = `resp_${++this.#ids}`;
    const shell = { id: responseId, object: "response", created_at: Math.floor(Date.now() / 1000), model, output: [] as unknown[] };
    const events: { type: string; [key: string]: unknown }[] = [{ type: "response.created", response: { ...shell, status: "in_progress" } }];
    const output: unknown[] = [];
    const item = (added: Record<string, unknown>, deltas: { type: string; [key: string]: unknown }[], done: Record<string, unknown>) => {
      const output_index = output.length;
      events.push({ type: "response.output_item.added", output_index, item: added });
      events.push(...deltas.map((delta) => ({ ...delta, output_index })));
      events.push({ type: "response.output_item.done", output_index, item: done });
      output.push(done);
    };
    if (response.text !== undefined) {
      const id = `msg_${++this.#ids}`;
      const part = { type: "output_text", text: response.text, annotations: [] };
      item(
        { type: "message", id, role: "assistant", status: "in_progress", content: [] },
        [
          { type: "response.content_part.added", item_id: id, content_index: 0, part: { ...part, text: "" } },
          { type: "response.output_text.delta", item_id: id, content_index: 0, delta: response.text },
          { type: "response.output_text.done", item_id: id, content_index: 0, text: response.text },
          { type: "response.content_part.done", item_id: id, content_index: 0, part },
        ],
        { type: "message", id, role: "assistant", status: "completed", content: [part] },
      );
    }
    for (const call of response.calls ?? []) {
      const id = `fc_${++this.#ids}`;
      const callId = call.callId ?? `call_${this.#ids}`;
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      const fields = { type: "function_call", id, call_id: callId, name: call.name, ...(call.namespace === undefined ? {} : { namespace: call.namespace }) };
      item(
        { ...fields, arguments: "", status: "in_progress" },
        [
          { type: "response.function_call_arguments.delta", item_id: id, delta: args },
          { type: "response.function_call_arguments.done", item_id: id, arguments: args },
        ],
        { ...fields, arguments: args, status: "completed" },
      );
    }
    events.push({ type: "response.completed", response: { ...shell, status: "completed", output, usage } });
    return events.map((event, sequence_number) => ({ ...event, sequence_number }));
  }
}
