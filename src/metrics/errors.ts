/** `[metrics] listen` could not be bound (in use, not an address of this host, no permission). */
export class MetricsListenError extends Error {
  override readonly name = "MetricsListenError";
  /** The socket error's code, e.g. `EADDRINUSE`. */
  readonly code: string | undefined;

  constructor(listen: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    super(`metrics.listen: cannot listen on ${listen}${code === undefined ? "" : ` (${code})`}`, { cause });
    this.code = code;
  }
}
