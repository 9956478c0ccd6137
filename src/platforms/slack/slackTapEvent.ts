import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { BlockAction } from "./blockActions.js";
import { isDmChannel, SLACK } from "./slackMessageEvent.js";
import { slackTsToIso8601 } from "./slackTimestamp.js";
import { tapIdOf } from "./tapId.js";

/**
 * The broker's event for a tap on one of its buttons: where the button's message is, keyed as
 * `slackEventOf` keys a message posted there (the thread, or the message's own `ts` when it is
 * top-level), so the tap reaches the conversation's session; the message id is the button's
 * message's `ts`, as its send's receipt named it. The event id is `tap:<trigger_id>`, one per tap;
 * the text is empty and `tap` carries the handle to answer with and the button's data.
 */
export function slackTapEventOf(action: BlockAction, senderName: string): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: `tap:${action.triggerId}`,
    timestamp: slackTsToIso8601(action.actionTs !== "" ? action.actionTs : action.messageTs),
    platform: SLACK,
    channel: { id: action.channel, type: isDmChannel(action.channel) ? "dm" : "channel", thread_id: action.threadTs !== "" ? action.threadTs : action.messageTs },
    sender: { id: action.user, name: senderName, display_name: senderName, is_bot: false },
    content: { type: "text", text: "" },
    mentions: [],
    message_id: action.messageTs,
    proactive: false,
    tap: { id: tapIdOf({ channel: action.channel, user: action.user, threadTs: action.threadTs }), data: action.actionId },
  };
}
