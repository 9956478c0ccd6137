import { WebSocket } from "ws";
import type { FakeDiscord } from "./fakeDiscord.js";
import { until } from "./fakeDiscordFixture.js";

/** A payload as the gateway sent it. */
export interface GatewayPayload {
  readonly op: number;
  readonly d: unknown;
  readonly s: number | null;
  readonly t: string | null;
}

/**
 * A bare WebSocket client for the gateway, for the protocol's edges a library never sends (a second
 * IDENTIFY, a payload before IDENTIFY, bad JSON, a missed heartbeat) and exact close codes.
 */
export class RawGatewayClient {
  readonly received: GatewayPayload[] = [];
  closeCode: number | undefined;
  closeReason = "";

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => void this.received.push(JSON.parse(String(data)) as GatewayPayload));
    socket.on("close", (code, reason) => {
      this.closeCode = code;
      this.closeReason = String(reason);
    });
  }

  static async open(fake: FakeDiscord, query = "v=10&encoding=json", url = fake.gatewayUrl): Promise<RawGatewayClient> {
    const socket = new WebSocket(`${url}?${query}`);
    const client = new RawGatewayClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return client;
  }

  send(payload: unknown): void {
    this.socket.send(typeof payload === "string" ? payload : JSON.stringify(payload));
  }

  identify(fake: FakeDiscord, intents: number, extra: Record<string, unknown> = {}): void {
    this.send({ op: 2, d: { token: fake.options.token, intents, properties: { os: "linux", browser: "raw", device: "raw" }, ...extra } });
  }

  /** Waits for the first payload (from `from` on) that matches. */
  async next(match: (payload: GatewayPayload) => boolean, from = 0): Promise<GatewayPayload> {
    await until(() => this.received.slice(from).some(match) || this.closeCode !== undefined, 10_000);
    const found = this.received.slice(from).find(match);
    if (!found) throw new Error(`gateway closed (${this.closeCode} ${this.closeReason}) before the payload came`);
    return found;
  }

  async closed(): Promise<number> {
    await until(() => this.closeCode !== undefined, 10_000);
    return this.closeCode!;
  }

  close(code = 1000): void {
    this.socket.close(code);
  }
}
