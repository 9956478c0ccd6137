import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { closeServer, listenLocal, readBody } from "../localHttp.js";

/** An HTTP answer: status, headers, body (JSON for the Web API, bytes or a page for files). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

/** What the server asks of the fake for each request. */
export interface SlackRoutes {
  /** `/api/<method>`, with the request's method, URL, headers and whole body. */
  call(method: string, request: IncomingMessage, url: URL, body: Buffer, gone: AbortSignal): Promise<HttpAnswer>;
  /** `GET /files-pri/…`: a shared file's bytes for the bot token, else what Slack serves a stranger. */
  file(path: string, authorization: string | undefined): HttpAnswer;
  /** `/upload/v1/…`: an upload URL `files.getUploadURLExternal` gave, with the request's method, type and body. */
  upload(path: string, method: string, contentType: string | undefined, body: Buffer): Promise<HttpAnswer>;
  /** A WebSocket upgrade (Socket Mode's `/link/`). */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** Slack's HTTP surface on 127.0.0.1 and a free port: `root` is `http://127.0.0.1:<port>`. */
export class SlackHttpServer {
  private constructor(
    private readonly server: Server,
    readonly root: string,
  ) {}

  static async listen(routes: SlackRoutes): Promise<SlackHttpServer> {
    const server = createServer((request, response) => void serve(routes, request, response));
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => routes.upgrade(request, socket, head));
    return new SlackHttpServer(server, await listenLocal(server));
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

async function serve(routes: SlackRoutes, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const gone = new AbortController();
  response.on("close", () => gone.abort());
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const body = await readBody(request);
  const method = /^\/api\/([A-Za-z0-9_.]+)$/.exec(url.pathname);
  let answer: HttpAnswer;
  try {
    if (method) answer = await routes.call(method[1]!, request, url, body, gone.signal);
    else if (url.pathname.startsWith("/files-pri/") && request.method === "GET") answer = routes.file(url.pathname, request.headers.authorization);
    else if (url.pathname.startsWith("/upload/v1/")) answer = await routes.upload(url.pathname, request.method ?? "GET", request.headers["content-type"], body);
    else answer = { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" };
  } catch (error) {
    // A bug in the fake: answered as Slack's outage, so the calling test fails on it instead of the worker dying.
    answer = { status: 500, headers: { "content-type": "application/json" }, body: JSON.stringify({ ok: false, error: "fatal_error", detail: (error as Error).message }) };
  }
  if (response.destroyed || response.writableEnded) return;
  response.writeHead(answer.status, { ...answer.headers, "content-length": String(Buffer.byteLength(answer.body)) });
  response.end(answer.body);
}
