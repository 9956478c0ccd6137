import { concat, defer, distinctUntilChanged, from, of, switchMap, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { PlatformCapabilities } from "../../operators/ingress/frames/helloFrame.js";
import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";
import { charsPerMessage } from "./charsPerMessage.js";
import type { IngressRules, PlatformPort, SoleReceiver } from "./platformPort.js";

/** What every process knows of a native platform from its config alone, and how to load its adapter. */
export interface NativePlatform {
  readonly name: string;
  readonly capabilities: PlatformCapabilities;
  /** Imports the adapter's module (and with it the platform's SDK) and makes its port. */
  load(): Promise<PlatformPort>;
}

/**
 * A native platform's port whose adapter is loaded when the broker prepares it, not when the
 * broker is built: grammY, the @discordjs packages and Slack's clients cost every process that
 * imports them (a gateway-only broker, each test file), so they are imported only by a broker
 * whose config names the platform. Until `prepare` loaded it the port is disconnected; what the
 * edge reads once started (`ingress`, `receiver`, `settled`) is the adapter's own.
 */
export class DeferredPort implements PlatformPort {
  readonly name: string;
  readonly platforms: readonly string[];
  readonly events: Observable<GatewayEvent>;
  readonly connected: Observable<boolean>;
  readonly #platform: NativePlatform;
  #loading: Promise<PlatformPort> | undefined;
  #port: PlatformPort | undefined;
  #closed = false;

  constructor(platform: NativePlatform) {
    this.#platform = platform;
    this.name = platform.name;
    this.platforms = [platform.name];
    this.events = defer(() => from(this.#load())).pipe(switchMap((port) => port.events));
    this.connected = concat(of(false), defer(() => from(this.#load())).pipe(switchMap((port) => port.connected))).pipe(distinctUntilChanged());
  }

  /** The adapter's skip and trust rules; read by the edge, which starts after `prepare`. */
  get ingress(): IngressRules {
    return this.#loaded("ingress").ingress;
  }

  get receiver(): SoleReceiver | undefined {
    return this.#loaded("receiver").receiver;
  }

  get isConnected(): boolean {
    return this.#port?.isConnected ?? false;
  }

  capabilities(platform: string): PlatformCapabilities | undefined {
    return platform === this.name ? this.#platform.capabilities : undefined;
  }

  messageLimit(platform: string): number {
    return charsPerMessage(this.capabilities(platform));
  }

  async send(message: OutboundMessage, options: { readonly wantAck: boolean }): Promise<SendReceipt> {
    return (await this.#load()).send(message, options);
  }

  settled(event: GatewayEvent): void {
    this.#port?.settled?.(event);
  }

  async prepare(): Promise<void> {
    await (await this.#load()).prepare?.();
  }

  start(options?: { readonly receive?: boolean }): void {
    this.#loaded("start").start(options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#loading === undefined) return;
    await (await this.#loading).close();
  }

  #load(): Promise<PlatformPort> {
    if (this.#loading === undefined) {
      if (this.#closed) return Promise.reject(new Error(`the ${this.name} port is closed`));
      this.#loading = this.#platform.load().then((port) => (this.#port = port));
    }
    return this.#loading;
  }

  #loaded(what: string): PlatformPort {
    if (this.#port === undefined) throw new Error(`the ${this.name} port's ${what} was asked for before prepare() loaded its adapter`);
    return this.#port;
  }
}
