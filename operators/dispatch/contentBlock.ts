/** An ACP content block as turnstream sends it in a `session/prompt`. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly mimeType: string; readonly data: string }
  | { readonly type: "resource"; readonly resource: EmbeddedBlob };

/** An ACP embedded resource with binary contents (`BlobResourceContents`): a file a user sent, base64. */
export interface EmbeddedBlob {
  /** A name for the file, not a path the agent could open: `attachment:///<name>`. */
  readonly uri: string;
  readonly mimeType: string;
  /** The file's bytes, base64. */
  readonly blob: string;
}

/**
 * What an agent said at `initialize` that its prompts may hold beyond text (ACP
 * `agentCapabilities.promptCapabilities`; omitted means unsupported). turnstream reads the one it
 * acts on: `embeddedContext`, whether a file a user sent may go as a `resource` block.
 */
export interface PromptCapabilities {
  readonly embeddedContext: boolean;
}

/** An agent that advertised nothing beyond text (and the images every agent is sent, as upstream sends them). */
export const NO_PROMPT_CAPABILITIES: PromptCapabilities = { embeddedContext: false };
