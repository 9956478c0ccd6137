import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { closeServer, listenLocal, readBody } from "../localHttp.js";
import type { CdnFile } from "./cdn.js";

/** The base path of REST v10, the only API version the fake has. */
export const API_PREFIX = "/api/v10";

/** One REST request, its path relative to /api/v10. */
export interface RestRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Aborted when the client hangs up. */
  readonly gone: AbortSignal;
}

/** An answer: a status, a JSON body (none for 204) and headers. */
export interface RestAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpHandlers {
  rest(request: RestRequest): Promise<RestAnswer>;
  cdn(path: string, query: URLSearchParams): CdnFile | undefined;
  /** A WebSocket upgrade; false when nothing took it. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}

/** The fake's one port on 127.0.0.1: REST under /api/v10, the CDN, and the gateway's WebSocket upgrades. */
export class DiscordHttpServer {
  private constructor(
    private readonly server: Server,
    /** `http://127.0.0.1:<port>` */
    readonly origin: string,
  ) {}

  static async listen(handlers: HttpHandlers): Promise<DiscordHttpServer> {
    const server = createServer((request, response) => void serve(handlers, request, response));
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!handlers.upgrade(request, socket, head)) socket.destroy();
    });
    return new DiscordHttpServer(server, await listenLocal(server));
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

async function serve(handlers: HttpHandlers, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const gone = new AbortController();
  response.on("close", () => gone.abort());
  try {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const body = await readBody(request);
    if (url.pathname.startsWith(`${API_PREFIX}/`)) {
      const path = url.pathname.slice(API_PREFIX.length);
      const answer = await handlers.rest({ method: request.method ?? "GET", path, query: url.searchParams, headers: request.headers, body, gone: gone.signal });
      return write(response, answer);
    }
    if (/^(\/media)?\/attachments\//.test(url.pathname) && request.method === "GET") {
      const file = handlers.cdn(url.pathname, url.searchParams);
      if (!file) return writeText(response, 404, "This content is no longer available.");
      response.writeHead(200, { "content-type": file.contentType, "content-length": file.bytes.length });
      response.end(file.bytes);
      return;
    }
    write(response, { status: 404, body: { message: "404: Not Found", code: 0 } });
  } catch (error) {
    write(response, { status: 500, body: { message: `500: Internal Server Error (fake Discord: ${(error as Error).message})`, code: 0 } });
  }
}

function write(response: ServerResponse, answer: RestAnswer): void {
  if (response.destroyed || response.writableEnded) return;
  if (answer.body === undefined) {
    response.writeHead(answer.status, { ...answer.headers });
    response.end();
    return;
  }
  const text = JSON.stringify(answer.body);
  response.writeHead(answer.status, { ...answer.headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

function writeText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  response.end(text);
}
