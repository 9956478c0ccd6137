/** An ACP content block as turnstream sends it in a `session/prompt`. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mimeType: string; readonly data: string };
