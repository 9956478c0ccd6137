import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { afterEach } from "vitest";
import { DevGateway, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { scratch, scriptedAgentPath } from "./agents.js";
import { spawnLogged } from "./cli.js";
import { useNatsServer, type NatsServer } from "./natsServer.js";
import { until } from "./stack.js";

/** What a member runs: an edge or a worker on NATS, or both in one process (`all`, the embedded bus without `natsUrl`). */
export type MemberRole = "all" | "edge" | "worker";

/** One `turnstream run` process of a cluster, with its parsed JSON log lines. */
export interface Member {
  readonly name: string;
  readonly role: MemberRole;
  readonly child: ChildProcessWithoutNullStreams;
  /** Every JSON log line it printed so far. */
  readonly logs: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  /** SIGKILL: no shutdown, no lease release, nothing acked. */
  kill9(): void;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

export interface ClusterOptions {
  /** nats://… of the test's own nats-server; absent: the embedded bus, for a single `all` member. */
  readonly natsUrl?: string;
  /** `[bus]` keys over the cluster's defaults (prefix, short lease TTL and ack wait for tests). */
  readonly bus?: Record<string, unknown>;
  /** More config sections for every member (`delivery`, `triage`, `pool`…); `agent` keys (`permission_mode`…) go over the cluster's scripted agent. */
  readonly config?: Record<string, unknown>;
  /** Environment of the scripted agent (`SCENARIO`…). */
  readonly agentEnv?: Record<string, string>;
  /** The agent script the workers run; default the scripted agent. */
  readonly agentScript?: string;
  /** Every member's log level; default `info`. */
  readonly logLevel?: "info" | "debug";
  /** More environment for every member process (`TMPDIR`…). */
  readonly env?: Record<string, string>;
  /** false: no `[gateway]` section, for a deployment on native platforms only (`[telegram]` in `config`). Default true. */
  readonly gateway?: boolean;
}

/**
 * A real deployment on one machine: a dev gateway (broadcasting every event to every connected
 * edge, as OpenAB's gateway does), `turnstream run --role edge|worker` processes talking over a
 * real nats-server, and the scripted ACP agent under the workers. Without `natsUrl`, one
 * `--role all` process on the embedded bus: the broker in a process of its own, as deployed.
 */
export class Cluster {
  readonly gateway: DevGateway;
  readonly members: Member[] = [];
  /** Reply frames the gateway received, in arrival order: messages only (status commands are in `commands`). */
  readonly replies: ReplyFrame[] = [];
  /** Command frames (reactions), in arrival order. */
  readonly commands: ReplyFrame[] = [];
  readonly #options: ClusterOptions;
  readonly #dir = scratch();
  #configs = 0;

  private constructor(gateway: DevGateway, options: ClusterOptions) {
    this.gateway = gateway;
    this.#options = options;
    gateway.received.subscribe((frame) => {
      if (frame.kind === "reply") (frame.frame.command === undefined ? this.replies : this.commands).push(frame.frame);
    });
  }

  static async start(options: ClusterOptions): Promise<Cluster> {
    return new Cluster(await DevGateway.start(), options);
  }

  /** What the scripted agents observed (`prompt …`, `new …`, `load …`), across every worker. */
  agentEvents(): string[] {
    return this.#dir.events();
  }

  /**
   * Starts a member and resolves once it logged `broker ready`. `natsUrl` gives this member another
   * way to the server (a proxy a test can cut: `TcpCut`).
   */
  async add(role: MemberRole, name = `${role}-${this.members.length + 1}`, options: { readonly natsUrl?: string } = {}): Promise<Member> {
    const file = join(this.#dir.dir, `${name}-${++this.#configs}.toml`);
    writeFileSync(file, stringify(this.#config(name, options.natsUrl)));
    const spawned = spawnLogged(["run", "--role", role, "--config", file], { env: { ...this.#options.env, LOG_LEVEL: this.#options.logLevel ?? "info" } });
    const { child, logs } = spawned;
    const exited = spawned.exited.then(({ code }) => code);
    const member: Member = {
      name,
      role,
      child,
      logs,
      exited,
      kill9: () => void child.kill("SIGKILL"),
      stop: async () => {
        child.kill("SIGTERM");
        return exited;
      },
    };
    this.members.push(member);
    const ready = await Promise.race([
      until(() => logs.some((line) => line.msg === "broker ready"), 20_000),
      exited.then(() => false),
    ]);
    if (!ready) throw new Error(`${name} did not become ready:\n${spawned.stderr()}\n${logs.map((l) => JSON.stringify(l)).join("\n")}`);
    return member;
  }

  /** Log lines of every member with this message. */
  logged(msg: string): Record<string, unknown>[] {
    return this.members.flatMap((member) => member.logs.filter((line) => line.msg === msg));
  }

  /** Resolves once at least `count` replies arrived; throws with what did arrive otherwise. */
  async replyCount(count: number, timeoutMs: number): Promise<ReplyFrame[]> {
    if (!(await until(() => this.replies.length >= count, timeoutMs))) {
      throw new Error(`expected ${count} replies, got ${this.replies.length}`);
    }
    return this.replies;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.members.map(async (member) => {
        if (member.child.exitCode !== null || member.child.signalCode !== null) return;
        const timer = setTimeout(() => member.kill9(), 10_000);
        await member.stop();
        clearTimeout(timer);
      }),
    );
    await this.gateway.close();
    this.#dir.cleanup();
  }

  #config(name: string, memberNatsUrl?: string): Record<string, unknown> {
    const { bus, config = {}, agentEnv = {} } = this.#options;
    const natsUrl = memberNatsUrl ?? this.#options.natsUrl;
    return {
      ...config,
      ...(natsUrl === undefined ? {} : { bus: { url: natsUrl, prefix: "cluster", ...bus } }),
      // The test's own [gateway] keys (bot_username, say) over the cluster's connection and open trust gate.
      ...(this.#options.gateway === false
        ? {}
        : { gateway: { url: this.gateway.url, token: this.gateway.token, allow_all_users: true, allow_all_channels: true, ...(config.gateway as object | undefined) } }),
      agent: {
        command: process.execPath,
        args: [this.#options.agentScript ?? scriptedAgentPath],
        working_dir: this.#dir.dir,
        env: { AGENT_EVENTS_FILE: this.#dir.eventsFile, ...agentEnv },
        ...(config.agent as object | undefined),
      },
      pool: { state_dir: join(this.#dir.dir, `state-${name}`), ...(config.pool as object | undefined) },
      log: { level: this.#options.logLevel ?? "info" },
    };
  }
}

/** The partitions a worker holds now (or held at `at`, its clock in ms), from its lease log lines. */
export function heldPartitions(worker: { logs: Record<string, unknown>[] }, at = Infinity): Set<number> {
  const owned = new Set<number>();
  for (const line of worker.logs) {
    if (typeof line.partition !== "number" || Number(line.time) > at) continue;
    if (line.msg === "partition lease acquired") owned.add(line.partition);
    if (line.msg === "partition lease released" || line.msg === "partition lease lost") owned.delete(line.partition);
  }
  return owned;
}

/** What `useNatsCluster` gives a describe block: the file's nats-server, and a cluster per test on it. */
export interface NatsClusterFixture {
  readonly server: NatsServer;
  /** Starts the test's cluster on the server; it is stopped after the test. */
  start(options: Omit<ClusterOptions, "natsUrl">): Promise<Cluster>;
}

/** A private nats-server for the enclosing describe block, and a cluster per test stopped after it. */
export function useNatsCluster(): NatsClusterFixture {
  const nats = useNatsServer();
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.stop();
    cluster = undefined;
  });
  return {
    get server(): NatsServer {
      return nats.server;
    },
    async start(options) {
      cluster = await Cluster.start({ natsUrl: this.server.url, ...options });
      return cluster;
    },
  };
}
