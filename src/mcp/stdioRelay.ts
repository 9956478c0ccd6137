import { connect, type Socket } from "node:net";
import type { Readable, Writable } from "node:stream";

/** The stdio entry's environment: where the broker listens, and the session's secret. */
export const MCP_ENDPOINT_ENV = "TURNSTREAM_MCP_ENDPOINT";
export const MCP_SECRET_ENV = "TURNSTREAM_MCP_SECRET";

/** Why the relay could not run; its message is one line for the agent's log, without the secret. */
export class RelayError extends Error {
  override readonly name = "RelayError";
}

export interface RelayOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/**
 * `turnstream mcp`, the stdio MCP server an agent spawns: it connects to the broker's socket
 * (`TURNSTREAM_MCP_ENDPOINT`), sends the session's secret (`TURNSTREAM_MCP_SECRET`) as its first
 * line, then copies bytes both ways — the MCP server itself runs in the broker, beside the
 * session's turns. Resolves when either side ends: the agent closed stdin, or the broker went
 * away. Rejects with `RelayError` when the environment is incomplete or the broker is unreachable.
 */
export async function relayStdio({ env, stdin, stdout }: RelayOptions): Promise<void> {
  const endpoint = env[MCP_ENDPOINT_ENV];
  const secret = env[MCP_SECRET_ENV];
  if (endpoint === undefined || endpoint === "" || secret === undefined || secret === "") {
    throw new RelayError(`${MCP_ENDPOINT_ENV} and ${MCP_SECRET_ENV} must be set (turnstream sets them in the MCP server entry it offers each session)`);
  }
  const socket = await open(endpoint);
  socket.write(`${secret}\n`);
  await new Promise<void>((resolve) => {
    stdin.pipe(socket);
    socket.pipe(stdout);
    socket.on("close", () => resolve());
    // The agent closed our stdin: no more requests; the broker's answers in flight still arrive.
    stdin.on("end", () => socket.end());
    socket.on("error", () => resolve());
  });
  // The broker is gone (or the agent hung up): stop reading, so the process can exit.
  stdin.unpipe(socket);
  stdin.destroy();
}

function open(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => reject(new RelayError(`cannot reach the broker's reply tool endpoint (${err.code ?? err.message}); is the broker that started this session still running?`, { cause: err })));
  });
}
