import { runEdge, type Edge } from "../gateway/edge.js";
import type { Instruments } from "../metrics/instruments.js";
import type { Send } from "../pipeline/send.js";
import type { Subjects } from "../wire/index.js";
import type { BrokerParts } from "./brokerParts.js";
import type { EventIntake } from "./eventIntake.js";

export interface EdgeHalfOptions {
  readonly subjects: Subjects;
  readonly instruments: Instruments;
  /** The broker's send, for what the edge answers itself (the trust echo). */
  readonly notices: Send;
  /** Where the gateway's events are queued for their turns. */
  readonly intake: EventIntake;
}

/**
 * Starts the broker's edge half when this process holds a gateway connection (`[gateway]`, edge
 * role): its events into the turn stream, the workers' sends out to the gateway. None otherwise.
 */
export function startEdgeHalf(parts: BrokerParts, { subjects, instruments, notices, intake }: EdgeHalfOptions): Edge | undefined {
  const { connector, config, bus } = parts;
  if (connector === undefined || config.gateway === undefined) return undefined;
  const edge = runEdge({
    connector,
    gateway: config.gateway,
    inbound: config.inbound,
    // Bubble modes and streaming wait for each ack to keep order on the wire; so does any edge on a
    // shared bus, where one conversation's messages may leave through several edges' sockets.
    // The activity message is edited and deleted later, so it needs its id from the ack too.
    wantAck: config.delivery.mode !== "text" || config.gateway.streaming || config.activity.enabled || bus.shared,
    // Only after the intake drained does the broker stop taking events, so nothing reaches here stopped.
    queue: (event, key, done) => intake.queueForEdge(event, key, done),
    bus,
    subjects,
    logger: parts.logger,
    scheduler: bus.scheduler,
    instruments,
    notices,
  });
  connector.start();
  return edge;
}
