import { catchError, concat, defer, EMPTY, ignoreElements, tap, type Observable } from "rxjs";
import type { OutboundMessage, SendReceipt } from "../../operators/delivery/outboundMessage.js";
import type { Logger } from "../log/logger.js";
import type { Send } from "../pipeline/send.js";
import type { LedgerRecord } from "../state/deliveryLedger.js";
import { isPlaceholderId } from "../state/ledgerRecord.js";
import { SendError } from "../wire/index.js";
import { changeIn, namesMessage } from "./delivery/messageChange.js";

// The streaming messages ("…" placeholders) a turn's attempts post to edit in place, as the
// delivery ledger keeps them: an attempt whose worker died leaves its message stale, and the
// re-run (`ledgerSend`) finds it in the ledger and deletes it.

/** Placeholder ids the earlier attempts recorded, each once. */
export function stalePlaceholders(priors: readonly (LedgerRecord | undefined)[]): string[] {
  return [...new Set(priors.flatMap((prior) => prior?.placeholders ?? []))];
}

/**
 * Deletes what interrupted attempts left to edit, one after another; never fails: a message that
 * stays is untidy, and the reply must still go out. Logs how many went, and each that did not.
 */
export function deleteStale(send: Send, first: OutboundMessage, ids: readonly string[], logger: Logger): Observable<never> {
  if (ids.length === 0) return EMPTY;
  let deleted = 0;
  const each = ids.map((id) =>
    defer(() => send(changeIn(first, id, undefined))).pipe(
      tap(() => void (deleted += 1)),
      ignoreElements(),
      catchError((err: unknown) => {
        logger.warn({ reason: "stale_placeholder_delete_failed", code: err instanceof SendError ? err.code : "send_failed", err }, "interrupted attempt's streaming message not deleted");
        return EMPTY;
      }),
    ),
  );
  return concat(
    ...each,
    defer(() => {
      if (deleted > 0) logger.info({ reason: "stale_placeholder", deleted, total: ids.length }, "interrupted attempt's streaming message deleted");
      return EMPTY;
    }),
  );
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
  if (ids.length === 0) return EMPTY;
  let expired = 0;
  const each = ids.map((id) =>
    defer(() => send({ ...changeIn(first, id, EXPIRED_QUESTION_TEXT), choices: [], plainText: true })).pipe(
      tap(() => void (expired += 1)),
      ignoreElements(),
      catchError((err: unknown) => {
        logger.warn({ reason: "stale_question_expire_failed", code: err instanceof SendError ? err.code : "send_failed", err }, "interrupted attempt's question not marked expired");
        return EMPTY;
      }),
    ),
  );
  return concat(
    ...each,
    defer(() => {
      if (expired > 0) logger.info({ reason: "stale_question", expired, total: ids.length }, "interrupted attempt's question marked expired");
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
