import type { GatewayEvent } from "../../ingress/gatewayEvent.js";
import { isGroupChannel } from "../../ingress/groupChannel.js";

/** What a send is, for its limits: to a group conversation or not, a reply to a person or proactive. */
export interface SendClass {
  readonly group: boolean;
  /** Replies to people go before proactive sends when the bot's bucket is contended. */
  readonly human: boolean;
}

/** What an event's sends are, for their limits: to a group conversation or not, a reply to a person or proactive. */
export function sendClassOf(event: Pick<GatewayEvent, "channel"> & { readonly proactive?: boolean | undefined }): SendClass {
  return { group: isGroupChannel(event.channel), human: event.proactive !== true };
}
