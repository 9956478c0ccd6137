import * as z from "zod";
import type { GatewayAttachment, GatewayEvent } from "../gatewayEvent.js";

// `openab.gateway.event.v1`, parsed liberally (protocol §3.2): unknown fields are ignored and
// dropped (zod's default `strip`), optional fields take their defaults, and `null` counts as
// absent wherever the field is optional. The required fields are the ones upstream requires.

/** `null` or missing → `fallback`. */
const withDefault = <S extends z.ZodType>(schema: S, fallback: () => z.output<S>) =>
  schema.nullish().transform((value): z.output<S> => value ?? fallback());

/** `null` or missing → the key is left out of the output. */
const optionalString = z.string().nullish();

const attachmentSchema = z
  .object({
    type: z.string(),
    filename: z.string(),
    mime_type: z.string(),
    data: withDefault(z.string(), () => ""),
    size: z.number().int().nonnegative(),
    path: optionalString,
    status: optionalString,
  })
  .transform(({ path, status, ...rest }): GatewayAttachment => ({
    ...rest,
    ...(path != null ? { path } : {}),
    ...(status != null ? { status } : {}),
  }));

/** Parses an event.v1 frame into exactly the `GatewayEvent` shape. `schema` is not checked (§3.2), only normalized. */
export const gatewayEventSchema = z
  .object({
    event_id: z.string(),
    // Required upstream, but a documented proactive example omits it (§3.2): missing → "".
    timestamp: withDefault(z.string(), () => ""),
    platform: z.string(),
    channel: z.object({ id: z.string(), type: z.string(), thread_id: optionalString }),
    sender: z.object({ id: z.string(), name: z.string(), display_name: z.string(), is_bot: z.boolean() }),
    content: z.object({
      type: z.string(),
      text: z.string(),
      attachments: withDefault(z.array(attachmentSchema), () => []),
    }),
    mentions: withDefault(z.array(z.string()), () => []),
    message_id: z.string(),
    proactive: withDefault(z.boolean(), () => false),
  })
  .transform(
    ({ channel: { thread_id, ...channel }, ...event }): GatewayEvent => ({
      schema: "openab.gateway.event.v1",
      event_id: event.event_id,
      timestamp: event.timestamp,
      platform: event.platform,
      channel: thread_id != null ? { ...channel, thread_id } : channel,
      sender: event.sender,
      content: event.content,
      mentions: event.mentions,
      message_id: event.message_id,
      proactive: event.proactive,
    }),
  );
