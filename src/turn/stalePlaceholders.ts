import { catchError, concat, defer, EMPTY, ignoreElements, tap, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { Logger } from "../log/logger.js";
import type { Send } from "../pipeline/send.js";
import type { LedgerRecord } from "../state/deliveryLedger.js";
import { isPlaceholderId } from "../state/ledgerRecord.js";
import { SendError } from "../wire/index.js";
import { changeIn, namesMessage } from "./delivery/messageChange.js";

// The streaming messages ("…" placeholders) a turn's attempts post to edit in place, and the
// questions they ask in the chat, as the delivery ledger keeps them: an attempt whose worker died
// leaves them stale, and the re-run (`ledgerSend`) finds them in the ledger, deletes the one and
// marks the other expired.

/** Placeholder ids the earlier attempts recorded, each once. */
export function stalePlaceholders(priors: readonly (LedgerRecord | undefined)[]): string[] {
  return [...new Set(priors.flatMap((prior) => prior?.placeholders ?? []))];
}

/**
 * Deletes what interrupted attempts left to edit, one after another; never fails: a message that
 * stays is untidy, and the reply must still go out. Logs how many went, and each that did not.
 */
export function deleteStale(send: Send, first: OutboundMessage, ids: readonly string[], logger: Logger): Observable<never> {
  return changeEachStale(send, ids, (id) => changeIn(first, id, undefined), logger, {
    failed: { reason: "stale_placeholder_delete_failed", msg: "interrupted attempt's streaming message not deleted" },
    done: { reason: "stale_placeholder", count: "deleted", msg: "interrupted attempt's streaming message deleted" },
  });
}

/** Question ids the earlier attempts recorded, each once. */
export function staleQuestions(priors: readonly (LedgerRecord | undefined)[]): string[] {
  return [...new Set(priors.flatMap((prior) => prior?.questions ?? []))];
}

/** What a question an interrupted attempt asked says once the re-run finds it. */
export const EXPIRED_QUESTION_TEXT = "⌛ Expired: the worker that asked this stopped. If the agent still needs an answer, it asks again.";

/**
 * Edits the questions interrupted attempts left open to say they expired, their buttons removed
 * (`choices: []`; a gateway never sees them), one after another; never fails: a question left
 * showing is untidy, and the reply must still go out. Logs how many, and each that failed.
 */
export function expireStale(send: Send, first: OutboundMessage, ids: readonly string[], logger: Logger): Observable<never> {
  return changeEachStale(send, ids, (id) => ({ ...changeIn(first, id, EXPIRED_QUESTION_TEXT), choices: [], plainText: true }), logger, {
    failed: { reason: "stale_question_expire_failed", msg: "interrupted attempt's question not marked expired" },
    done: { reason: "stale_question", count: "expired", msg: "interrupted attempt's question marked expired" },
  });
}

/** The lines a pass over stale messages writes: one per failure, one for how many were changed. */
interface StaleLines {
  readonly failed: { readonly reason: string; readonly msg: string };
  readonly done: { readonly reason: string; readonly count: string; readonly msg: string };
}

/** Sends `change(id)` for each id, one after another, a failure logged and passed over; then the count, when any went. */
function changeEachStale(send: Send, ids: readonly string[], change: (id: string) => OutboundMessage, logger: Logger, lines: StaleLines): Observable<never> {
  if (ids.length === 0) return EMPTY;
  let changed = 0;
  const each = ids.map((id) =>
    defer(() => send(change(id))).pipe(
      tap(() => void (changed += 1)),
      ignoreElements(),
      catchError((err: unknown) => {
        logger.warn({ reason: lines.failed.reason, code: err instanceof SendError ? err.code : "send_failed", err }, lines.failed.msg);
        return EMPTY;
      }),
    ),
  );
  return concat(
    ...each,
    defer(() => {
      if (changed > 0) logger.info({ reason: lines.done.reason, [lines.done.count]: changed, total: ids.length }, lines.done.msg);
      return EMPTY;
    }),
  );
}

/** The receipt's id when the ledger can keep it; one it cannot is logged (the message would stay if this attempt died). */
export function recordedPlaceholder(receipt: SendReceipt, logger: Logger): string | undefined {
  if (!namesMessage(receipt.messageId)) return undefined; // no id to delete it by: the streaming delivery says so
  if (isPlaceholderId(receipt.messageId)) return receipt.messageId;
  logger.warn({ reason: "placeholder_id_too_long", chars: receipt.messageId.length }, "streaming message not recorded in the delivery ledger");
  return undefined;
}
