import type { BotApiFailure } from "./botApiFailure.js";

/**
 * Whether a failed `sendRichMessage` goes out again as `sendMessage`: when Telegram refused the
 * rich message (a 4xx), so it is surely not in the chat. Upstream falls back on any failure;
 * turnstream keeps its rule that a message is never sent twice: a 5xx or a lost answer may have
 * posted it (`unknown`, not sent again). A 429 says "not now", not "not this": the reply is
 * waited out and sent again as it was. An unreachable Telegram would refuse the plain one too.
 */
export function fallsBackToPlain(failure: BotApiFailure): failure is Extract<BotApiFailure, { kind: "refused" }> {
  return failure.kind === "refused" && failure.status >= 400 && failure.status < 500 && failure.status !== 429;
}
