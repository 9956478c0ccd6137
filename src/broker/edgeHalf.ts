import { runEdge, type Edge } from "../edge/edge.js";
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
  /** Where the ports' events are queued for their turns. */
  readonly intake: EventIntake;
}

/**
 * Starts the broker's edge half, one edge per platform port this process holds (edge role): each
 * port's events into the turn stream, the workers' sends for its platforms out through it. A port
 * whose platform lets one connection per bot receive starts standing by where `holdReceiver` says
 * who receives (a shared bus); its edge stops that hold with its intake.
 */
export function startEdgeHalf(parts: BrokerParts, { subjects, instruments, notices, intake }: EdgeHalfOptions): Edge[] {
  const { config, bus } = parts;
  return (parts.ports ?? []).map((port) => {
    const edge = runEdge({
      port,
      inbound: config.inbound,
      // Bubble modes and streaming wait for each ack to keep order on the wire; so does any edge on a
      // shared bus, where one conversation's messages may leave through several edges' sockets.
      // The activity message is edited and deleted later, so it needs its id from the ack too.
      wantAck: config.delivery.mode !== "text" || config.gateway?.streaming === true || config.activity.enabled || bus.shared,
      // Only after the intake drained does the broker stop taking events, so nothing reaches here stopped.
      queue: (event, key, done) => intake.queueForEdge(event, key, done),
      bus,
      subjects,
      logger: parts.logger.child({ port: port.name }),
      scheduler: bus.scheduler,
      instruments,
      notices,
    });
    const { receiver } = port;
    if (receiver === undefined || parts.holdReceiver === undefined) {
      port.start();
      return edge;
    }
    // After the edge subscribed to the port's events: nothing it receives goes unread.
    port.start({ receive: false });
    const receiving = parts.holdReceiver(receiver);
    return { ...edge, stopIntake: async () => void (await Promise.all([receiving.stop(), edge.stopIntake()])) };
  });
}
