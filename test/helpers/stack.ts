import { join } from "node:path";
import type { SchedulerLike } from "rxjs";
import { afterAll, beforeAll } from "vitest";
import type { Broker } from "../../src/broker/broker.js";
import { connectBroker } from "../../src/broker/connectBroker.js";
import type { ConfigInput } from "../../src/config/index.js";
import { DevGateway, devGatewayHello, type DevGatewayOptions, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { scratch, scriptedAgentPath } from "./agents.js";
import { captureLogs, type LogRecord } from "./logCapture.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "./natsServer.js";

export type StackBus = "memory" | "nats";

let stackBus: StackBus = "memory";
let natsServer: Promise<NatsServer> | undefined;
let stacks = 0;

/**
 * The buses an end-to-end suite runs on: the embedded one, and NATS (a private nats-server per test
 * file, a fresh prefix per stack) wherever a nats-server binary is installed — always in CI. Use
 * with `describe.each(stackBuses())(…, (bus) => { useStackBus(bus); … })`.
 */
export function stackBuses(): StackBus[] {
  return natsServerAvailable() ? ["memory", "nats"] : ["memory"];
}

/** Makes the enclosing describe block's stacks run on `bus`, and stops the file's nats-server after it. */
export function useStackBus(bus: StackBus): void {
  beforeAll(() => {
    stackBus = bus;
  });
  afterAll(async () => {
    stackBus = "memory";
    const server = natsServer;
    natsServer = undefined;
    await (await server)?.stop();
  });
}

export interface Stack {
  readonly gateway: DevGateway;
  readonly broker: Broker;
  readonly records: LogRecord[];
  /** Reply frames the gateway received, in order: messages only (status commands are in `commands`). */
  readonly replies: ReplyFrame[];
  /** Command frames (reactions), in order. */
  readonly commands: ReplyFrame[];
  /** Non-reply frames the gateway received. */
  readonly others: string[];
  /** Files reply frames carried inline (`content.attachments`), in order, their bytes decoded. */
  readonly files: ReceivedFile[];
  /** What the scripted agent observed (`prompt …`, `cancel …`, `new …`). */
  agentEvents(): string[];
  /** Resolves once at least `count` replies arrived (generous bound: shared machines). */
  replyCount(count: number, timeoutMs?: number): Promise<ReplyFrame[]>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Merged over the stack's own: the gateway URL and an allow-all trust gate, the scripted agent, a temp state dir. */
  readonly config?: Omit<ConfigInput, "gateway"> & { gateway?: Partial<NonNullable<ConfigInput["gateway"]>> };
  readonly agentEnv?: Record<string, string>;
  readonly gateway?: DevGatewayOptions;
  /**
   * The gateway's hello advertises `supports_outbound_attachments` for every platform it lists;
   * without a hello of the test's own, the dev gateway's (`devGatewayHello`, telegram).
   */
  readonly outboundFiles?: boolean;
  /** The clock `[cron]` reads (a faster one: test/helpers/fastClock.ts); default the wall clock. */
  readonly cronScheduler?: SchedulerLike;
}

/** A file a reply frame carried (`content.attachments`): what the frame said, and the bytes its base64 `data` decodes to. */
export interface ReceivedFile {
  readonly type: string;
  readonly filename: string;
  readonly mime_type: string;
  readonly size: number;
  readonly bytes: Buffer;
  /** The frame's `content.text`. */
  readonly caption: string;
  readonly frame: ReplyFrame;
}

/** The files a reply frame carries, decoded. */
export function filesOf(frame: ReplyFrame): ReceivedFile[] {
  return (frame.content.attachments ?? []).map(({ type, filename, mime_type, size, data }) => ({
    type,
    filename,
    mime_type,
    size,
    bytes: Buffer.from(data, "base64"),
    caption: frame.content.text,
    frame,
  }));
}

/** `options` with a hello that advertises `supports_outbound_attachments` for every platform in it (the dev gateway's own when none). */
export function withOutboundFiles(options: DevGatewayOptions = {}): DevGatewayOptions {
  const hello = options.hello ?? devGatewayHello();
  const capabilities = (hello.capabilities ?? {}) as Record<string, Record<string, unknown>>;
  const withFiles = Object.fromEntries(Object.entries(capabilities).map(([platform, caps]) => [platform, { ...caps, supports_outbound_attachments: true }]));
  return { ...options, hello: { ...hello, capabilities: withFiles } };
}

/** A real dev gateway (WebSocket server), a broker connected to it, and the scripted agent as its ACP agent. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const dir = scratch();
  const gateway = await DevGateway.start(options.outboundFiles === true ? withOutboundFiles(options.gateway) : options.gateway);
  const replies: ReplyFrame[] = [];
  const commands: ReplyFrame[] = [];
  const others: string[] = [];
  const files: ReceivedFile[] = [];
  gateway.received.subscribe((frame) => {
    if (frame.kind !== "reply") {
      others.push(frame.text);
      return;
    }
    (frame.frame.command === undefined ? replies : commands).push(frame.frame);
    files.push(...filesOf(frame.frame));
  });
  const { logger, records } = captureLogs();
  const { gateway: gatewayKeys, agent, pool, bus: busKeys, ...rest } = options.config ?? {};
  const nats = stackBus === "nats" ? await (natsServer ??= startNatsServer()) : undefined;
  const bus =
    nats === undefined
      ? busKeys
      : // A short lease TTL: the worker owns its partitions about a second after it starts.
        { url: nats.url, prefix: `e2e${process.pid}_${++stacks}`, lease_ttl_secs: 3, ...busKeys };
  const broker = await connectBroker({
    logger,
    ...(options.cronScheduler === undefined ? {} : { cronScheduler: options.cronScheduler }),
    config: {
      ...rest,
      ...(bus === undefined ? {} : { bus }),
      gateway: { url: gateway.url, token: gateway.token, allow_all_users: true, allow_all_channels: true, ...gatewayKeys },
      agent: { command: process.execPath, args: [scriptedAgentPath], working_dir: dir.dir, env: { AGENT_EVENTS_FILE: dir.eventsFile, ...options.agentEnv }, ...agent },
      pool: { state_dir: join(dir.dir, "state"), ...pool },
    },
  });
  await broker.start();
  const connected = await until(() => gateway.brokerCount > 0, 10_000);
  if (!connected) throw new Error("the broker did not connect to the dev gateway");
  if (nats !== undefined) {
    // Every partition leased and consumed before the test sends anything, as on the embedded bus.
    const partitions = broker.config.bus.partitions;
    const owned = await until(() => records.filter((r) => r.msg === "partition lease acquired").length >= partitions, 15_000);
    if (!owned) throw new Error("the worker did not lease its partitions");
  }
  return {
    gateway,
    broker,
    records,
    replies,
    commands,
    others,
    files,
    agentEvents: dir.events,
    async replyCount(count, timeoutMs = 15_000) {
      if (!(await until(() => replies.length >= count, timeoutMs))) {
        throw new Error(`expected ${count} replies, got ${replies.length}: ${JSON.stringify(replies.map((r) => r.content.text.slice(0, 80)))}`);
      }
      return replies;
    },
    async stop() {
      await broker.stop({ graceMs: 2_000 });
      await gateway.close();
      dir.cleanup();
    },
  };
}

export async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

let nextEvent = 1;

/** An `event.v1` frame as a gateway sends it; `text` picks the scripted agent's scenario. */
export function userEvent(text: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id = nextEvent++;
  return {
    schema: "openab.gateway.event.v1",
    event_id: `evt-${id}`,
    timestamp: "2026-08-25T03:00:00Z",
    platform: "telegram",
    channel: { id: "chat-1", type: "dm" },
    sender: { id: "user-1", name: "ann", display_name: "Ann", is_bot: false },
    content: { type: "text", text },
    mentions: [],
    message_id: `msg-${id}`,
    proactive: false,
    ...overrides,
  };
}
