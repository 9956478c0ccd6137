// Text: splitting, directives, prefixes, silence and masking of plain reply text.
// The public surface of delivery/text/: everything else in the folder is internal.
export { parseOutputDirectives, type OutputDirectives } from "./outputDirectives.js";
export { redactSecrets, type Redact } from "./redactSecrets.js";
export { redactedText } from "./redactedText.js";
export { planTextReply, type TextReplyPlan } from "./textReply.js";
export { splitMessage } from "./splitMessage.js";
export { silentReply } from "./silentReply.js";
export { quoteFor, type ReplyToMode } from "./replyThreading.js";
export { hasUnresolvedModelVariable, prefixProblem, prefixRoom, resolveResponsePrefix, shortModelName, startsMarkdownBlock, withResponsePrefix, type PrefixVariables } from "./responsePrefix.js";
