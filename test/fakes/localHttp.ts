import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";

// What the fake platform servers (telegram/, discord/, slack/) share: a listener on a free port of
// 127.0.0.1 (never a real platform host), a close that cuts kept-alive clients, and a whole body.

/** Listens on a free port of 127.0.0.1 (keep-alive as clients expect); resolves with `http://127.0.0.1:<port>`. */
export async function listenLocal(server: Server): Promise<string> {
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** Stops listening and cuts every open connection (long polls, keep-alive), resolving once closed. */
export async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
}

/** A request's whole body. */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}
