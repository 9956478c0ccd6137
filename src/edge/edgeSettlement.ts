import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { PlatformPort } from "../platforms/platformPort.js";

/**
 * Tells a port when the edge is done with each event it emitted (`PlatformPort.settled`): queued,
 * skipped, denied or refused — and for messages inbound debounce merged into one, when that one
 * is. Built only for a port that listens, so the gateway's path pays nothing for it.
 */
export class EdgeSettlement {
  readonly #settled: (event: GatewayEvent) => void;
  /** A merged event, to the messages it stands for until it is settled. */
  readonly #merged = new Map<GatewayEvent, readonly GatewayEvent[]>();

  private constructor(settled: (event: GatewayEvent) => void) {
    this.#settled = settled;
  }

  static of(port: PlatformPort): EdgeSettlement | undefined {
    const { settled } = port;
    return settled === undefined ? undefined : new EdgeSettlement(settled.bind(port));
  }

  /** `merged` stands for `events` (each emitted by the port): they settle when it does. */
  merged(events: readonly GatewayEvent[], merged: GatewayEvent): void {
    this.#merged.set(merged, events);
  }

  settle(event: GatewayEvent): void {
    const parts = this.#merged.get(event);
    if (parts === undefined) {
      this.#settled(event);
      return;
    }
    this.#merged.delete(event);
    for (const part of parts) this.#settled(part);
  }
}
