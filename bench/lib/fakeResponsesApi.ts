import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OpenAI Responses API for the agent benchmarks, so a real agent (codex-acp) runs offline
 * and its model costs nothing: every `POST /v1/responses` streams one assistant message,
 * `reply(input)` of the request's last user text, as server-sent events in the order the real API
 * sends them (the subset test/helpers/fakeResponsesApi.ts scripts, without its script: a benchmark
 * only needs every turn answered). `GET /v1/models` answers an empty list, anything else 404.
 */
export class FakeResponsesApi {
  readonly #server: Server;
  readonly #reply: (input: string) => string;
  #ids = 0;
  /** `POST /v1/responses` answered. */
  responses = 0;

  /** Not listening yet: use `FakeResponsesApi.start`. */
  constructor(reply: (input: string) => string) {
    this.#reply = reply;
    this.#server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (raw += chunk));
      req.on("end", () => this.#answer(req.method ?? "", (req.url ?? "").split("?")[0] ?? "", raw, res));
    });
  }

  /** Listens on 127.0.0.1 and a free port. */
  static async start(reply: (input: string) => string): Promise<FakeResponsesApi> {
    const api = new FakeResponsesApi(reply);
    await new Promise<void>((resolve) => api.#server.listen(0, "127.0.0.1", resolve));
    return api;
  }

  /** The base URL to configure (`…/v1`). */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #answer(method: string, path: string, raw: string, res: ServerResponse): void {
    if (method === "GET" && path === "/v1/models") {
      // OpenAI's list shape (`data`) and codex's (`models`), both empty: the agent keeps its bundled model metadata.
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [], models: [] }));
      return;
    }
    if (method !== "POST" || path !== "/v1/responses") {
      res.writeHead(404).end("not found");
      return;
    }
    let body: { model?: string; input?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      res.writeHead(400).end("body is not JSON");
      return;
    }
    this.responses += 1;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const event of this.#events(this.#reply(lastUserText(body.input)), body.model ?? "")) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }

  /** One assistant message's stream: created, the item with its text part and delta, completed with usage. */
  #events(text: string, model: string): { type: string; [key: string]: unknown }[] {
    const shell = { id: `resp_${++this.#ids}`, object: "response", created_at: Math.floor(Date.now() / 1000), model, output: [] as unknown[] };
    const id = `msg_${++this.#ids}`;
    const part = { type: "output_text", text, annotations: [] };
    const done = { type: "message", id, role: "assistant", status: "completed", content: [part] };
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    const events = [
      { type: "response.created", response: { ...shell, status: "in_progress" } },
      { type: "response.output_item.added", output_index: 0, item: { type: "message", id, role: "assistant", status: "in_progress", content: [] } },
      { type: "response.content_part.added", output_index: 0, item_id: id, content_index: 0, part: { ...part, text: "" } },
      { type: "response.output_text.delta", output_index: 0, item_id: id, content_index: 0, delta: text },
      { type: "response.output_text.done", output_index: 0, item_id: id, content_index: 0, text },
      { type: "response.content_part.done", output_index: 0, item_id: id, content_index: 0, part },
      { type: "response.output_item.done", output_index: 0, item: done },
      { type: "response.completed", response: { ...shell, status: "completed", output: [done], usage } },
    ];
    return events.map((event, sequence_number) => ({ ...event, sequence_number }));
  }
}

/** The text of the last user message in a Responses API `input` ("" when there is none). */
function lastUserText(input: unknown): string {
  if (!Array.isArray(input)) return typeof input === "string" ? input : "";
  for (const item of [...input].reverse()) {
    const message = item as { role?: unknown; content?: unknown };
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    if (Array.isArray(message.content)) {
      return message.content.map((part) => ((part as { text?: unknown }).text === undefined ? "" : String((part as { text?: unknown }).text))).join("");
    }
  }
  return "";
}
