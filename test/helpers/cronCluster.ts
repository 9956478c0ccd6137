import { expect } from "vitest";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { firstValueFrom, tap, type SchedulerLike } from "rxjs";
import type { CronFiring } from "../../operators/ingress/gatewayEvent.js";
import type { Broker } from "../../src/broker/broker.js";
import { connectBroker } from "../../src/broker/connectBroker.js";
import { openBucket } from "../../src/bus/nats/buckets.js";
import { DevGateway, type ReplyFrame } from "../../src/devgateway/devGateway.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { KvCronMarks } from "../../src/state/kv/kvCronMarks.js";
import { subjects } from "../../src/wire/index.js";
import { scratch, scriptedAgentPath } from "./agents.js";
import { heldPartitions, type ClusterOptions } from "./cluster.js";
import { captureLogs, type LogRecord } from "./logCapture.js";
import { until } from "./stack.js";

/**
 * The job of every [cron] scale-out test: each minute, on a platform the gateway carries; the
 * scripted agent answers `say status ok` with `status ok`. The dev gateway acks every send, so
 * each firing's `create_topic` names a thread of its own (the ack's message id).
 */
export const CRON_JOB = { schedule: "* * * * *", platform: "line", channel: "group-7", message: "say status ok" } as const;
/** The scripted agent's answer to `CRON_JOB`. */
export const CRON_ANSWER = "status ok";
/** The `🕐` post of each firing (the job has no `sender_name`: upstream's default sender). */
export const CRON_POST = "🕐 [openab-cron]: say status ok";
/** Partition lease TTL of `CronBrokers`: a stopped worker's partitions move within a few seconds. */
export const CRON_LEASE_TTL_SECS = 3;

/** What the processes of a run did, minute by minute, read from their log lines and the gateway. */
export interface CronTally {
  /** Minutes some worker ran a firing for (`cronjob running`), ISO, sorted; a minute twice is listed twice. */
  readonly runs: readonly string[];
  /** Minutes whose turn a worker settled (`turn complete`: acked, the ledger says complete), sorted. */
  readonly completed: readonly string[];
  /** Minutes a process queued first (`🔔 cronjob fired`), sorted; twice would mean the bus kept two. */
  readonly fired: readonly string[];
  /** Per minute, how many processes queued it (first or duplicate): the processes that were up then. */
  readonly submitted: ReadonlyMap<string, number>;
  /** The `🕐` posts the gateway received. */
  readonly posts: number;
  /** The agent's answers the gateway received. */
  readonly answers: number;
}

/** A firing's event id, `cron:<job>:<minute ISO>`: its minute. */
const FIRING_MINUTE = /^cron:.+:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/;

/** Tallies every process's log lines (`records`) and what the gateway received (`replies`). */
export function cronTally(records: readonly Record<string, unknown>[], replies: readonly ReplyFrame[]): CronTally {
  const minutesOf = (msg: string) =>
    records
      .filter((line) => line.msg === msg)
      .map((line) => String(line.minute))
      .sort();
  const submitted = new Map<string, number>();
  for (const minute of [...minutesOf("🔔 cronjob fired"), ...minutesOf("cronjob firing already queued by another process")]) {
    submitted.set(minute, (submitted.get(minute) ?? 0) + 1);
  }
  return {
    runs: minutesOf("cronjob running"),
    completed: records
      .filter((line) => line.msg === "turn complete")
      .map((line) => FIRING_MINUTE.exec(String(line.event_id))?.[1])
      .filter((minute) => minute !== undefined)
      .sort(),
    fired: minutesOf("🔔 cronjob fired"),
    submitted,
    posts: replies.filter((reply) => reply.content.text === CRON_POST).length,
    answers: replies.filter((reply) => reply.content.text === CRON_ANSWER).length,
  };
}

/** The minutes from `first` to `last` (ISO), one after another. */
/**
 * The counts every scale-out run holds: each minute from the first to the last ran once (none
 * twice, none missed), with one post and one answer each, at least `atLeast` of them; each was
 * queued first by one process (the bus refused the others' copies), and at most one firing queued
 * as the processes stopped is still in the stream. Returns the last minute that ran.
 */
export function expectOneTurnPerMinute(tally: CronTally, atLeast: number): string {
  const last = tally.runs.at(-1)!;
  expect(tally.runs).toEqual(minutesBetween(tally.runs[0]!, last));
  expect(tally.runs.length).toBeGreaterThanOrEqual(atLeast);
  expect(tally.posts).toBe(tally.runs.length);
  expect(tally.answers).toBe(tally.runs.length);
  expect(tally.fired.filter((minute) => minute <= last)).toEqual(tally.runs);
  expect(tally.fired.filter((minute) => minute > last).length).toBeLessThanOrEqual(1);
  return last;
}

export function minutesBetween(first: string, last: string): string[] {
  const minutes: string[] = [];
  for (let at = Date.parse(first); at <= Date.parse(last); at += 60_000) minutes.push(new Date(at).toISOString());
  return minutes;
}

/**
 * `Cluster` options for spawned `turnstream run` processes holding `CRON_JOB` on the wall clock
 * (the dev gateway acks by default), logging at debug so each process's duplicate firings show.
 * A lease TTL of 4 s: separate processes on a loaded machine flapped at 2.
 */
export function cronDeployment(prefix: string): Omit<ClusterOptions, "natsUrl"> {
  return {
    bus: { prefix, lease_ttl_secs: 4, ack_wait_secs: 3 },
    config: { cron: { jobs: [CRON_JOB] }, reactions: { enabled: false } },
    logLevel: "debug",
  };
}

/** One broker of a `CronBrokers` run. */
export interface CronBroker {
  readonly name: string;
  readonly broker: Broker;
  /** Its log lines (debug and up), each tagged with `broker: name`. */
  readonly records: LogRecord[];
}

export interface CronBrokersOptions {
  readonly natsUrl: string;
  /** `[bus] prefix`: a fresh one per test, so streams, leases and marks start empty. */
  readonly prefix: string;
  /** The one clock every broker's `[cron]` reads (`fastClock`), so they agree on the minute. */
  readonly clock: SchedulerLike;
  readonly catchUp: "none" | "last";
}

/**
 * Brokers in this test process, each `--role all` with a NATS connection of its own and the same
 * `[cron]` (`CRON_JOB`), all connected to ONE dev gateway: a post or answer through any edge is
 * received once, where it can be counted. Every firing a worker dispatches is recorded with its
 * `cron` marks (`dispatched`), so a catch-up firing (`catch_up: true`) is seen as it runs.
 */
export class CronBrokers {
  readonly gateway: DevGateway;
  readonly members: CronBroker[] = [];
  /** Reply frames in arrival order: messages only (create_topic and other commands are in `commands`). */
  readonly replies: ReplyFrame[] = [];
  readonly commands: ReplyFrame[] = [];
  /** Each cron firing a worker was about to run (the `beforeDispatch` stage), in order, with its broker. */
  readonly dispatched: Array<{ readonly broker: string; readonly cron: CronFiring }> = [];
  readonly #options: CronBrokersOptions;
  readonly #stopped = new Set<CronBroker>();
  readonly #dir = scratch();
  #nc: NatsConnection | undefined;
  #marks: Promise<KvCronMarks> | undefined;

  private constructor(gateway: DevGateway, options: CronBrokersOptions) {
    this.gateway = gateway;
    this.#options = options;
    gateway.received.subscribe((frame) => {
      if (frame.kind === "reply") (frame.frame.command === undefined ? this.replies : this.commands).push(frame.frame);
    });
  }

  static async start(options: CronBrokersOptions): Promise<CronBrokers> {
    return new CronBrokers(await DevGateway.start(), options);
  }

  /** Connects a broker (NATS, buckets) without starting it: `start` is then quick, for a test that times it. */
  async connect(name: string): Promise<CronBroker> {
    const { logger, records } = captureLogs("debug");
    const pipeline = new Pipeline().use(
      "beforeDispatch",
      tap((event) => {
        if (event.cron !== undefined) this.dispatched.push({ broker: name, cron: event.cron });
      }),
    );
    const { natsUrl, prefix, clock, catchUp } = this.#options;
    const broker = await connectBroker({
      logger: logger.child({ broker: name }),
      pipeline,
      cronScheduler: clock,
      config: {
        bus: { url: natsUrl, prefix, lease_ttl_secs: CRON_LEASE_TTL_SECS, ack_wait_secs: 3 },
        gateway: { url: this.gateway.url, token: this.gateway.token, allow_all_users: true, allow_all_channels: true },
        agent: { command: process.execPath, args: [scriptedAgentPath], working_dir: this.#dir.dir, env: { AGENT_EVENTS_FILE: this.#dir.eventsFile } },
        pool: { state_dir: join(this.#dir.dir, `state-${name}`) },
        reactions: { enabled: false },
        cron: { catch_up: catchUp, jobs: [CRON_JOB] },
      },
    });
    const member = { name, broker, records };
    this.members.push(member);
    return member;
  }

  /** Starts a connected broker and resolves once its edge is connected to the gateway. */
  async start(member: CronBroker): Promise<CronBroker> {
    const before = this.gateway.brokerCount;
    await member.broker.start();
    if (!(await until(() => this.gateway.brokerCount > before, 10_000))) throw new Error(`${member.name} did not connect to the dev gateway`);
    return member;
  }

  /** Connects and starts a broker. */
  async add(name: string): Promise<CronBroker> {
    return this.start(await this.connect(name));
  }

  /** Resolves once the running brokers hold every partition between them (the firings' partition has a consumer). */
  async leased(timeoutMs = 20_000): Promise<void> {
    const partitions = this.members[0]?.broker.config.bus.partitions ?? 0;
    const held = () => {
      const all = new Set<number>();
      for (const member of this.running()) for (const partition of heldPartitions({ logs: member.records })) all.add(partition);
      return all.size;
    };
    if (!(await until(() => held() === partitions, timeoutMs))) throw new Error(`the brokers hold ${held()} of ${partitions} partitions`);
  }

  /** Stops one broker: `graceMs: 0` abandons what it is running (its events stay unacked, for another worker). */
  async stopOne(member: CronBroker, graceMs: number): Promise<void> {
    this.#stopped.add(member);
    await member.broker.stop({ graceMs });
  }

  /** The brokers started and not stopped. */
  running(): CronBroker[] {
    return this.members.filter((member) => !this.#stopped.has(member) && member.records.some((line) => line.msg === "broker ready"));
  }

  /** Every broker's log lines. */
  records(): LogRecord[] {
    return this.members.flatMap((member) => member.records);
  }

  tally(): CronTally {
    return cronTally(this.records(), this.replies);
  }

  /** The latest minute the job fired for, as the brokers recorded it for `catch_up` (`<prefix>_cron`). */
  async lastMarked(): Promise<number | undefined> {
    const job = this.records().find((line) => line.msg === "cronjob registered")?.job;
    if (typeof job !== "string") throw new Error("no broker registered the job yet");
    this.#marks ??= (async () => {
      this.#nc = await connect({ servers: this.#options.natsUrl });
      return new KvCronMarks(await openBucket(this.#nc, subjects(this.#options.prefix).buckets.cron, { ttlMs: 0 }));
    })();
    return firstValueFrom((await this.#marks).lastFired(job));
  }

  /** Stops every broker still running (running turns may finish within `graceMs`), the gateway and the test's own connection. */
  async stop(graceMs = 5_000): Promise<void> {
    await Promise.all(this.members.map((member) => this.stopOne(member, graceMs)));
    await this.#marks?.catch(() => undefined);
    await this.#nc?.close();
    await this.gateway.close();
    this.#dir.cleanup();
  }
}
