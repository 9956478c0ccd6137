import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A scripted plain HTTP error. */
export interface ScriptedFailure {
  readonly status: number;
  readonly body: string;
}

/** A scripted step: a fixed reply or failure, or one computed (and possibly delayed) from the request. */
export type Step<Request, Reply> = Reply | ScriptedFailure | ((request: Request) => Reply | ScriptedFailure | Promise<Reply | ScriptedFailure>);

/**
 * What every fake model API in the tests shares: an HTTP server on 127.0.0.1 with a free port, its
 * `…/v1` base URL, the requests it got, and a script of steps taken one per model request. A
 * subclass answers each request once its body has been read (`answer`), with `scriptedReply`.
 */
export abstract class ScriptedModelServer<Request, Reply extends object> {
  readonly requests: Request[] = [];
  readonly #server: Server = createServer();
  readonly #script: Step<Request, Reply>[];

  protected constructor(script: readonly Step<Request, Reply>[]) {
    this.#script = [...script];
    this.#server.on("request", (req, res) => {
      let raw = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (raw += chunk));
      req.on("end", () => void this.answer(req.method ?? "", req.url ?? "", req.headers, raw, res));
    });
  }

  /** Listens on 127.0.0.1 and a free port; resolves with the fake itself. */
  protected async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  protected abstract answer(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): Promise<void>;

  /**
   * Records `request` and takes the next step for it: the reply for the subclass to write, or
   * `undefined` when this already answered — a scripted failure, a 500 once the script ran out —
   * or the client went away meanwhile (a cancelled turn).
   */
  protected async scriptedReply(request: Request, res: ServerResponse): Promise<Reply | undefined> {
    this.requests.push(request);
    const step = this.#script.shift();
    const response = step === undefined ? { status: 500, body: `no scripted response for request ${this.requests.length}` } : await (typeof step === "function" ? step(request) : step);
    if (res.destroyed) return undefined;
    if ("status" in response) {
      res.writeHead(response.status, { "content-type": "application/json" }).end(response.body);
      return undefined;
    }
    return response;
  }

  /** The base URL to configure (`…/v1`). */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Appends steps to the script. */
  push(...steps: Step<Request, Reply>[]): void {
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
}
