import type { IncomingHttpHeaders, IncomingMessage } from "node:http";

/** What reading a request's body came to. */
export type BodyRead = { readonly kind: "body"; readonly bytes: Buffer } | { readonly kind: "too_large" } | { readonly kind: "aborted" };

/**
 * Whether the request says, before anything of its body is read, that the body is larger than
 * `maxBytes` (its `Content-Length`). A chunked body says nothing and is bounded as it is read.
 */
export function declaredTooLarge(headers: IncomingHttpHeaders, maxBytes: number): boolean {
  const declared = headers["content-length"];
  // Node has already refused a malformed or doubled Content-Length (400) before the request got here.
  return declared !== undefined && Number(declared) > maxBytes;
}

/**
 * The request's body, read into memory up to `maxBytes`. One byte more and reading stops at once
 * (`too_large`: the caller answers 413 and closes the connection); the chunks held so far are let
 * go. A client that goes away, or a request Node ends early, is `aborted`. Settles once.
 */
export function readBoundedBody(request: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (read: BodyRead): void => {
      if (settled) return;
      settled = true;
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("aborted", onAborted);
      request.off("error", onAborted);
      request.off("close", onClose);
      resolve(read);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks = [];
        request.pause();
        settle({ kind: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => settle({ kind: "body", bytes: Buffer.concat(chunks, size) });
    const onAborted = (): void => settle({ kind: "aborted" });
    // After "end" this is a no-op; before it, the body never came whole.
    const onClose = (): void => settle({ kind: "aborted" });
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("aborted", onAborted);
    request.on("error", onAborted);
    request.on("close", onClose);
  });
}
