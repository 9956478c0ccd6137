/**
 * The `hello.v1` fields (after `schema` and `protocol_version`) that say what the dev gateway does
 * for `platform`: it acks every send, edit and delete that asks, posts reactions, edits and
 * deletes messages, takes 4096 characters, and shows a file a reply carries inline
 * (`supports_outbound_attachments`, turnstream's capability name).
 */
export function devGatewayHello(platform = "telegram"): Record<string, unknown> {
  return {
    capabilities: {
      [platform]: {
        send_ack: true,
        edit_ack: true,
        delete_ack: true,
        supports_reactions: true,
        can_edit: true,
        can_delete: true,
        streaming_mode: "edit",
        show_streaming_placeholder: true,
        message_limit: { unit: "characters", max: 4096 },
        status_backend: "reactions",
        supports_outbound_attachments: true,
      },
    },
  };
}
