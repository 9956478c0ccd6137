import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { GatewayConnection, type GatewayHost } from "./gatewayConnection.js";

/** The path of the gateway URL GET /gateway/bot gives, and of READY's `resume_gateway_url`. */
export const GATEWAY_PATH = "/gateway";
export const RESUME_GATEWAY_PATH = "/gateway/resume";

/**
 * The gateway's WebSocket side, on the fake's HTTP port: the URL query checked (`v=10`, `encoding=json`;
 * the fake has no ETF and no transport compression), one GatewayConnection per socket, and what a test
 * does to the bot's connections: op 7, op 9, a close code, a dropped socket, a heartbeat request.
 */
export class GatewayServer {
  readonly connections: GatewayConnection[] = [];
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });

  constructor(private readonly host: GatewayHost) {}

  /** Takes an HTTP upgrade aimed at the gateway's paths; false leaves the request to someone else. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (path !== GATEWAY_PATH && path !== RESUME_GATEWAY_PATH) return false;
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new GatewayConnection(this.connections.length + 1, path, ws, this.host);
      this.connections.push(connection);
      const closeCode = queryRefusal(url.searchParams);
      // A refused query is closed at once, before HELLO, as Discord does.
      if (closeCode !== undefined) {
        ws.on("close", (code) => (connection.closeCode = code));
        ws.close(closeCode.code, closeCode.reason);
        return;
      }
      connection.start();
    });
    return true;
  }

  /** Connections open now. */
  get open(): GatewayConnection[] {
    return this.connections.filter((connection) => connection.open);
  }

  close(): void {
    for (const connection of this.open) connection.drop();
    this.wss.close();
  }
}

function queryRefusal(query: URLSearchParams): { code: number; reason: string } | undefined {
  if (query.get("v") !== "10") return { code: 4012, reason: "Invalid API version" };
  const encoding = query.get("encoding") ?? "json";
  if (encoding !== "json") return { code: 4000, reason: `fake Discord speaks JSON only, not ${encoding}` };
  if (query.has("compress")) return { code: 4000, reason: "fake Discord does not compress the transport" };
  return undefined;
}
