import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeServer, listenLocal } from "../localHttp.js";
import { BotApiError, notFound, requestEntityTooLarge } from "./botApiError.js";
import { encodingOf, type ParamEncoding } from "./callLog.js";
import { requestParams, type Params } from "./requestParams.js";

/** An answer to a method call: `{"ok":true,"result":…}` or a refusal, with its HTTP status. */
export type CallAnswer = { readonly status: number; readonly body: object };

/** What the server asks of the fake for each request. */
export interface BotApiRoutes {
  /**
   * `/bot<token>/<method>`: the parameters already read from whichever encoding carried them, or the
   * refusal of a body that could not be read (over the upload limit, unparsable).
   */
  call(token: string, method: string, params: Params | BotApiError, encoding: ParamEncoding, gone: AbortSignal): Promise<CallAnswer>;
  /** `GET /file/bot<token>/<file_path>`: the file's bytes, or a refusal. */
  file(token: string, path: string): Buffer | BotApiError;
}

/** Room in a request body beside its one file at the upload limit: the other fields and the multipart framing. */
const FIELDS_ROOM_BYTES = 1 << 20;

/** The Bot API's HTTP surface on 127.0.0.1 and a free port; `root` is what a client takes as its `api_root`. */
export class BotApiHttpServer {
  private constructor(
    private readonly server: Server,
    readonly root: string,
  ) {}

  /** `uploadLimitBytes`: a request body over it (and room for the other fields) is answered 413 without being read into memory. */
  static async listen(routes: BotApiRoutes, uploadLimitBytes: number): Promise<BotApiHttpServer> {
    const bodyLimit = uploadLimitBytes + FIELDS_ROOM_BYTES;
    const server = createServer((request, response) => void serve(routes, request, response, bodyLimit));
    return new BotApiHttpServer(server, await listenLocal(server));
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

async function serve(routes: BotApiRoutes, request: IncomingMessage, response: ServerResponse, bodyLimit: number): Promise<void> {
  const gone = new AbortController();
  response.on("close", () => gone.abort());
  try {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const body = await readBoundedBody(request, bodyLimit);
    const call = /^\/bot([^/]*)\/([^/]*)$/.exec(url.pathname);
    const file = /^\/file\/bot([^/]*)\/(.+)$/.exec(url.pathname);
    if (call) {
      const token = decodeURIComponent(call[1]!);
      const contentType = request.headers["content-type"];
      const params = body === undefined ? requestEntityTooLarge() : await requestParams(url, contentType, body).catch((error: unknown) => (error instanceof BotApiError ? error : Promise.reject(error)));
      const answer = await routes.call(token, decodeURIComponent(call[2]!), params, encodingOf(contentType, body?.length ?? bodyLimit), gone.signal);
      return writeJson(response, answer.status, answer.body);
    }
    if (file && request.method === "GET") {
      const bytes = routes.file(decodeURIComponent(file[1]!), decodeURIComponent(file[2]!));
      if (bytes instanceof BotApiError) return writeJson(response, bytes.errorCode, bytes.body);
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
      response.end(bytes);
      return;
    }
    writeJson(response, 404, notFound().body);
  } catch (error) {
    if (error instanceof BotApiError) return writeJson(response, error.errorCode, error.body);
    writeJson(response, 500, { ok: false, error_code: 500, description: `Internal Server Error: ${(error as Error).message}` });
  }
}

/**
 * A request's whole body, or undefined when it is over `limit` bytes: the rest is read and dropped
 * (answering before the upload ends would make a client see a reset, not the 413), never kept.
 */
function readBoundedBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    request.on("end", () => resolve(size <= limit ? Buffer.concat(chunks) : undefined));
    request.on("error", reject);
  });
}

function writeJson(response: ServerResponse, status: number, body: object): void {
  if (response.destroyed || response.writableEnded) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}
