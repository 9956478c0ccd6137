import { z } from "zod";

/** A file inline in a reply frame (`content.attachments`): the event attachments' shape, `data` in base64. */
export const replyAttachmentSchema = z.looseObject({
  type: z.string(),
  filename: z.string(),
  mime_type: z.string(),
  data: z.string(),
  size: z.number().int().nonnegative(),
});

/** A `reply.v1` frame as the dev gateway reads it from a broker. */
export const replyFrameSchema = z.looseObject({
  schema: z.literal("openab.gateway.reply.v1"),
  reply_to: z.string(),
  platform: z.string(),
  channel: z.looseObject({ id: z.string(), thread_id: z.string().optional() }),
  content: z.looseObject({ type: z.string(), text: z.string(), attachments: z.array(replyAttachmentSchema).optional() }),
  command: z.string().optional(),
  request_id: z.string().optional(),
  quote_message_id: z.string().optional(),
});
export type ReplyFrame = z.infer<typeof replyFrameSchema>;
