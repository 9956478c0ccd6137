import { BehaviorSubject, Subject } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import type { IngressRules, PlatformPort } from "../../src/platforms/platformPort.js";

/** A port of the test's own, in process: the events it is handed, what it sent, and what the edge settled. */
export class ScriptedPort implements PlatformPort {
  readonly name = "scripted";
  readonly platforms: readonly string[];
  readonly events = new Subject<GatewayEvent>();
  readonly connected = new BehaviorSubject(true);
  readonly isConnected = true;
  readonly settledIds: string[] = [];
  readonly sent: OutboundMessage[] = [];
  constructor(
    readonly ingress: IngressRules,
    platforms: readonly string[] = ["scripted"],
  ) {
    this.platforms = platforms;
  }
  capabilities(): undefined {
    return undefined;
  }
  messageLimit(): number {
    return 4096;
  }
  send(message: OutboundMessage): Promise<SendReceipt> {
    this.sent.push(message);
    return Promise.resolve({ messageId: `m${this.sent.length}` });
  }
  settled(event: GatewayEvent): void {
    this.settledIds.push(event.event_id);
  }
  start(): void {}
  close(): Promise<void> {
    this.events.complete();
    return Promise.resolve();
  }
}
