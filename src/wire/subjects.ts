import { subjectToken } from "./subjectToken.js";

export { subjectToken } from "./subjectToken.js";

/**
 * Every bus subject and durable name turnstream uses, and the only place that spells them. All
 * carry the deployment's `[bus] prefix`, so several deployments can share one NATS server.
 */
export interface Subjects {
  /** Durable: inbound events of one partition, waiting for their turn. */
  turn(partition: number): string;
  /** Filter over every partition's turn subject. */
  readonly turns: string;
  /** Durable consumer name of the workers reading `turns`. */
  readonly turnConsumer: string;
  /**
   * Request/reply: one message to post on a platform, answered with its ack. Any platform string
   * (see `subjectToken`). A platform spoken to natively (`native`) has a subject of its own, outside
   * `sends`, so only its adapter's edges answer it, never a gateway's.
   */
  send(platform: string): string;
  /** Filter over every gateway platform's send subject (not the native ones). */
  readonly sends: string;
  /** Queue group of the gateway's edges serving `sends`. */
  readonly sendQueue: string;
  /** Queue group of the edges serving a native platform's `send` subject. */
  sendQueueOf(platform: string): string;
  /** Durable consumer name of one partition (NATS: one pull consumer per partition, leased to one worker). */
  partitionConsumer(partition: number): string;
  /** JetStream stream holding every `turn(…)` subject. */
  readonly stream: string;
  /** The subjects `stream` stores: every turn subject (`>`, as existing streams were created with). */
  readonly streamSubjects: readonly string[];
  /** Whether a subject or filter lies among the turn subjects, the only durable ones. */
  isTurn(subject: string): boolean;
  /** NATS KV bucket names of the shared state. */
  readonly buckets: {
    /** Partition leases and worker presence. */
    readonly leases: string;
    /** Triage state per conversation. */
    readonly triage: string;
    /** ACP session ids per session key (`session/load` after a takeover). */
    readonly sessions: string;
    /** Inbound dedupe claims per human message. */
    readonly dedupe: string;
    /** Delivery ledger per event. */
    readonly ledger: string;
    /** Per-bot rate buckets per platform (`[rate_limits]`). */
    readonly rates: string;
    /** Group history per conversation (`[inbound] history_limit`). */
    readonly history: string;
    /** The latest minute each cron job fired for (`[cron] catch_up`). */
    readonly cron: string;
  };
  /** JetStream object store bucket where a file a worker sends waits, in chunks, until the edge posted it (`Bus.files`). */
  readonly filesBucket: string;
}

export interface SubjectsOptions {
  /** Platforms spoken to natively (a `[telegram]` section, …), whose sends their adapters answer. */
  readonly native?: readonly string[];
}

export function subjects(prefix = "turnstream", options: SubjectsOptions = {}): Subjects {
  const native = new Set(options.native ?? []);
  // Stream, consumer and bucket names allow no dots: `acme.prod` names things `acme_prod_…`.
  const name = prefix.replaceAll(".", "_");
  return {
    turn: (partition) => {
      if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`invalid partition ${partition}`);
      return `${prefix}.turn.${partition}`;
    },
    turns: `${prefix}.turn.*`,
    turnConsumer: `${name}_workers`,
    send: (platform) => (native.has(platform) ? `${prefix}.native.${subjectToken(platform)}` : `${prefix}.send.${subjectToken(platform)}`),
    sends: `${prefix}.send.*`,
    sendQueue: `${prefix}.edges`,
    sendQueueOf: (platform) => `${prefix}.edges.${subjectToken(platform)}`,
    partitionConsumer: (partition) => {
      if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`invalid partition ${partition}`);
      return `${name}_p${partition}`;
    },
    stream: `${name}_turns`,
    streamSubjects: [`${prefix}.turn.>`],
    isTurn: (subject) => subject.startsWith(`${prefix}.turn.`),
    buckets: {
      leases: `${name}_leases`,
      triage: `${name}_triage`,
      sessions: `${name}_sessions`,
      dedupe: `${name}_dedupe`,
      ledger: `${name}_ledger`,
      rates: `${name}_rates`,
      history: `${name}_history`,
      cron: `${name}_cron`,
    },
    filesBucket: `${name}_files`,
  };
}
