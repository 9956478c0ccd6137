export { SlackPort, type SlackPortOptions } from "./slackPort.js";
export { slackCapabilities, SLACK_MESSAGE_LIMIT } from "./slackCapabilities.js";
export { SLACK } from "./slackMessageEvent.js";
export { SlackTokenRejectedError } from "./tokenRejectedError.js";
export { markdownToMrkdwn } from "./markdownToMrkdwn.js";
