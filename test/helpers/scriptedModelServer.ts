import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What every fake model API in the tests shares: an HTTP server on 127.0.0.1 with a free port, its
 * `…/v1` base URL, and a script of steps taken one per model request. A subclass answers each
 * request once its body has been read (`answer`), taking steps with `nextStep`.
 */
export abstract class ScriptedModelServer<Step> {
  readonly #server: Server = createServer();
  readonly #script: Step[];

  protected constructor(script: readonly Step[]) {
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

  /** The next scripted step, or `undefined` once the script ran out. */
  protected nextStep(): Step | undefined {
    return this.#script.shift();
  }

  /** The base URL to configure (`…/v1`). */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** Appends steps to the script. */
  push(...steps: Step[]): void {
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
