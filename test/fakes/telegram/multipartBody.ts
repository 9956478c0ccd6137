import { badRequest } from "./botApiError.js";

/** A file part of a multipart/form-data body: its field name, the file name it was sent with, its bytes. */
export class UploadedFile {
  constructor(
    readonly field: string,
    readonly filename: string,
    readonly contentType: string,
    readonly bytes: Buffer,
  ) {}

  get size(): number {
    return this.bytes.length;
  }
}

const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");

/**
 * A multipart/form-data body read as the Bot API server reads it (TDLib's `HttpReader`): parts
 * between `--boundary` lines, each part's headers up to a blank line; `content-disposition` must
 * start with `form-data;`, its `name=` and `filename=` values end at `;` and may be quoted or not.
 * grammY writes `content-disposition:form-data;name="photo";filename=cat.png`, which a strict
 * RFC 7578 parser (undici's `Response.formData()`) refuses: the fake reads what Telegram reads.
 * A part with a `filename` is a file; a part with content type `application/x-www-form-urlencoded`
 * is read as more parameters. The first value of a name wins.
 */
export function multipartParams(contentType: string, body: Buffer): Record<string, string | UploadedFile> {
  const boundary = boundaryOf(contentType);
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const params: Record<string, string | UploadedFile> = {};
  const keep = (name: string, value: string | UploadedFile) => {
    if (!(name in params)) params[name] = value;
  };
  const start = body.indexOf(opening);
  if (start < 0) throw unparsable();
  let at = start + opening.length;
  while (!body.subarray(at, at + 2).equals(Buffer.from("--"))) {
    const headersEnd = body.indexOf(HEADERS_END, at);
    if (headersEnd < 0) throw unparsable();
    if (headersEnd === at) throw badRequest("headers in multipart/form-data are empty");
    if (!body.subarray(at, at + 2).equals(CRLF)) throw unparsable();
    const part = partHeaders(body.subarray(at + 2, headersEnd + 2).toString("utf8"));
    const contentStart = headersEnd + HEADERS_END.length;
    const contentEnd = body.indexOf(delimiter, contentStart);
    if (contentEnd < 0) throw unparsable();
    const content = body.subarray(contentStart, contentEnd);
    if (part.filename !== undefined) keep(part.name, new UploadedFile(part.name, part.filename, part.contentType, Buffer.from(content)));
    else if (part.contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      for (const [name, value] of new URLSearchParams(content.toString("utf8"))) keep(name, value);
    } else keep(part.name, content.toString("utf8"));
    at = contentEnd + delimiter.length;
  }
  return params;
}

/** `boundary=` of the Content-Type, quoted or not. */
function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined) throw unparsable();
  return boundary;
}

interface PartHeaders {
  readonly name: string;
  readonly filename: string | undefined;
  readonly contentType: string;
}

/** One part's headers (lines ending in CRLF, a line starting with a space or tab continuing the one before). */
function partHeaders(text: string): PartHeaders {
  let name = "";
  let filename: string | undefined;
  let contentType = "application/octet-stream";
  for (const line of text.split("\r\n").join("\n").replace(/\n[ \t]/g, " ").split("\n")) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon < 0) throw badRequest("can't parse form data headers");
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === "content-type") contentType = value;
    if (header !== "content-disposition") continue;
    if (!value.startsWith("form-data;")) throw badRequest("expected form-data content disposition");
    for (const [key, given] of dispositionParams(value.slice("form-data;".length))) {
      if (key === "name") name = given;
      else if (key === "filename") filename = given;
    }
  }
  if (name === "") throw badRequest("field name in multipart/form-data not found");
  return { name, filename, contentType };
}

/** `key=value` pairs split at `;`, each trimmed and unquoted when quoted at both ends. */
function dispositionParams(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  let rest = text.trim();
  while (rest.includes("=")) {
    const equals = rest.indexOf("=");
    const key = rest.slice(0, equals).trim();
    const after = rest.slice(equals + 1);
    const semicolon = after.indexOf(";");
    let value = (semicolon < 0 ? after : after.slice(0, semicolon)).trim();
    if (value.length > 1 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    pairs.push([key, value]);
    rest = semicolon < 0 ? "" : after.slice(semicolon + 1).trim();
  }
  return pairs;
}

function unparsable() {
  return badRequest("Can't parse multipart/form-data body");
}
