/** A conversation id as Slack writes them: `C…` (a channel), `G…` (an older private one), `D…` (a DM). */
export const CHANNEL_ID = /^[CDG][A-Z0-9]{2,40}$/;

/** A person's (or bot user's) id: `U…`, or `W…` on Enterprise Grid. */
export const USER_ID = /^[UW][A-Z0-9]{2,40}$/;

/** A message timestamp: seconds, a dot, microseconds. */
export const MESSAGE_TS = /^\d{1,12}\.\d{1,9}$/;
