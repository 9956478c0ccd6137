import { z } from "zod";

/** What an edge answers on a send subject after the gateway acked (or refused) the message. */
export type SendReply = z.infer<typeof sendReplySchema>;

export const sendReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), messageId: z.string() }),
  // `retryAfterMs`: the gateway refused the write for now and said when the same message may go again.
  z.object({ ok: z.literal(false), code: z.string(), error: z.string(), retryAfterMs: z.number().int().nonnegative().optional() }),
]);

/**
 * The message id an edge answers for a reaction it did not post because the gateway's hello says
 * the platform cannot show one: nothing reached the chat (not counted as sent).
 */
export const SKIPPED_MESSAGE_ID = "gw_skipped";

/** The header naming one send across its retries, so an edge answers a retry from its record instead of posting twice. */
export const SEND_ID_HEADER = "Turnstream-Send-Id";
