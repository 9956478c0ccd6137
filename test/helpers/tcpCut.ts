import { createServer, connect, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of one address (a nats-server) for one process of a test, which the test
 * can cut: every connection through it is closed and new ones are refused until it is restored —
 * that process alone has lost its server, the others keep theirs.
 */
export class TcpCut {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #cut = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on a free loopback port, forwarding to `target` (`nats://host:port` or `host:port`). */
  static async start(target: string): Promise<TcpCut> {
    const { hostname, port } = new URL(target.includes("://") ? target : `tcp://${target}`);
    let cutter!: TcpCut;
    const server = createServer((client) => cutter.#accept(client, hostname, Number(port)));
    cutter = new TcpCut(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return cutter;
  }

  /** `nats://127.0.0.1:<port>` of the proxy. */
  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address === "string") throw new Error("TcpCut: not listening");
    return `nats://127.0.0.1:${address.port}`;
  }

  /** Closes every connection through the proxy and refuses new ones. */
  cut(): void {
    this.#cut = true;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  /** Lets connections through again. */
  restore(): void {
    this.#cut = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket, host: string, port: number): void {
    if (this.#cut) {
      client.destroy();
      return;
    }
    const upstream = connect(port, host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.#sockets.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => {
        this.#sockets.delete(from);
        to.destroy();
      });
    }
  }
}
