/**
 * Media types by file extension, for a file the agent named without one. The common ones only. A
 * Map, not an object: the extension is the agent's, and `x.constructor` must not find a function.
 */
const BY_EXTENSION: ReadonlyMap<string, string> = new Map(Object.entries({
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
  zip: "application/zip",
  json: "application/json",
  csv: "text/csv",
  txt: "text/plain",
  md: "text/markdown",
  html: "text/html",
  patch: "text/x-diff",
  diff: "text/x-diff",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  mp4: "video/mp4",
}));

/** Pictures every platform shows inline; anything else goes as a document (an SVG too: Telegram refuses it as a photo). */
const INLINE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A media type as `type/subtype` in lower case, without parameters; undefined when it is not one. */
function cleanMediaType(given: string): string | undefined {
  const bare = given.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(bare) ? bare : undefined;
}

/**
 * A file's media type: the one given when it is a well-formed `type/subtype`, else the file name's
 * extension's, else `application/octet-stream`.
 */
export function mediaTypeOf(filename: string, given?: string): string {
  const clean = given === undefined ? undefined : cleanMediaType(given);
  if (clean !== undefined) return clean;
  const dot = filename.lastIndexOf(".");
  const extension = dot < 0 ? "" : filename.slice(dot + 1).toLowerCase();
  return BY_EXTENSION.get(extension) ?? "application/octet-stream";
}

/** Whether a file of this media type is shown as a picture (else as a document). */
export function isInlineImage(mediaType: string): boolean {
  return INLINE_IMAGES.has(mediaType);
}

/** A name for a file the agent gave none: `image.png`, `file.pdf`, `file`. */
export function fallbackFileName(mediaType: string): string {
  const extension = [...BY_EXTENSION].find(([, type]) => type === mediaType)?.[0];
  const stem = mediaType.startsWith("image/") ? "image" : "file";
  return extension === undefined ? stem : `${stem}.${extension}`;
}
