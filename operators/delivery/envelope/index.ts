// The envelope: parsing an `openab.turn.v1` reply and its leak guard.
// The public surface of delivery/envelope/: everything else in the folder is internal.
export { parseEnvelope, type EnvelopeLimits, type EnvelopeResult } from "./envelope.js";
export type { EnvelopeError } from "./envelopeError.js";
export { findEnvelopeSpan } from "./findEnvelopeSpan.js";
export { stripEnvelope } from "./stripEnvelope.js";
export { planStructuredBubbles, type OnParseError, type StructuredBubblesPlan, type StructuredOptions } from "./structuredBubbles.js";
export { bubbleMessages, planStructuredReply, type StructuredReplyPlan } from "./envelopeReply.js";
