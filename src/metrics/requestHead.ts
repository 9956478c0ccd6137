/** One request's head, as the metrics listener needs it. */
export interface RequestHead {
  readonly method: string;
  /** The path, without the query. */
  readonly path: string;
  /** The client keeps the connection open after the answer (HTTP/1.1 unless `close`; HTTP/1.0 only with `keep-alive`). */
  readonly keepAlive: boolean;
  /** The request announced a body: the listener reads none, so the connection closes after the answer. */
  readonly hasBody: boolean;
}

/** A head that is not HTTP/1.x as the listener reads it. */
export interface BadHead {
  readonly bad: "request_line" | "header_line";
}

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.([01])$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):(.*)$/;

/**
 * Reads a request head (the text before the blank line, CRLF-separated, latin1): the request line
 * and the three headers the listener acts on. Linear in the head; everything else is ignored.
 * Line folding and malformed lines are refused, as RFC 9112 lets a server do.
 */
export function parseRequestHead(head: string): RequestHead | BadHead {
  // Empty lines before a request line are ignored (RFC 9112 §2.2): some clients send one after a body.
  let from = 0;
  while (head.startsWith("\r\n", from)) from += 2;
  const lines = head.slice(from).split("\r\n");
  const request = REQUEST_LINE.exec(lines[0] ?? "");
  if (request === null) return { bad: "request_line" };
  const [, method = "", target = "", minor] = request;
  let connection = "";
  let hasBody = false;
  for (let i = 1; i < lines.length; i++) {
    const header = HEADER_LINE.exec(lines[i] as string);
    if (header === null) return { bad: "header_line" };
    const name = (header[1] as string).toLowerCase();
    // trim(), not a regex around the value: a run of blanks must not make the match quadratic.
    const value = (header[2] as string).trim().toLowerCase();
    if (name === "connection") connection = `${connection},${value}`;
    else if (name === "transfer-encoding" || (name === "content-length" && value !== "0")) hasBody = true;
  }
  const tokens = connection.split(",").map((token) => token.trim());
  const keepAlive = minor === "1" ? !tokens.includes("close") : tokens.includes("keep-alive");
  return { method, path: target.split("?", 1)[0] as string, keepAlive, hasBody };
}
