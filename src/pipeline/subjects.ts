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
  /** Request/reply: one message to post on a platform, answered with the gateway's ack. */
  send(platform: string): string;
  /** Filter over every platform's send subject. */
  readonly sends: string;
  /** Queue group of the edges serving `sends`. */
  readonly sendQueue: string;
}

export function subjects(prefix = "turnstream"): Subjects {
  return {
    turn: (partition) => {
      if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`invalid partition ${partition}`);
      return `${prefix}.turn.${partition}`;
    },
    turns: `${prefix}.turn.*`,
    turnConsumer: `${prefix.replaceAll(".", "_")}_workers`,
    send: (platform) => `${prefix}.send.${subjectToken(platform)}`,
    sends: `${prefix}.send.*`,
    sendQueue: `${prefix}.edges`,
  };
}

/**
 * Makes any non-empty string one subject token: percent-encoding, plus `.` and `*`, which
 * `encodeURIComponent` leaves alone but NATS reserves.
 */
export function subjectToken(value: string): string {
  if (value === "") throw new RangeError("a subject token cannot be empty");
  return encodeURIComponent(value).replace(/[.*!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
