import type { Msg } from "@nats-io/transport-node";

/** The server's "no responders" status: an empty message with code 503 on the reply inbox. */
export function isNoRespondersStatus(msg: Msg): boolean {
  return msg.data.length === 0 && msg.headers?.code === 503;
}
