/** `[webhooks] listen` could not be bound (in use, not an address of this host, no permission). */
export class WebhookListenError extends Error {
  override readonly name = "WebhookListenError";
  /** The socket error's code, e.g. `EADDRINUSE`. */
  readonly code: string | undefined;

  constructor(listen: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`webhooks.listen: cannot listen on ${listen}${code === undefined ? "" : ` (${code})`}`, { cause });
    this.code = code;
  }
}
