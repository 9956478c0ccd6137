import type { API } from "@discordjs/core";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import type { Logger } from "../../log/logger.js";
import type { ChannelDirectory } from "./channelDirectory.js";
import type { MessageGates } from "./messageVerdict.js";

/** What an interaction intake (slash commands, button taps) needs: the API to answer with, the gates, and where its events go. */
export interface InteractionIntakeOptions {
  readonly api: API;
  readonly logger: Logger;
  readonly gates: MessageGates;
  readonly channels: ChannelDirectory;
  readonly botId: () => string | undefined;
  readonly emit: (event: GatewayEvent) => void;
}
