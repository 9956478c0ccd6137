/**
 * Upstream's kinds of file in a message (OpenAB's `src/media.rs`, reference §2.7), which its
 * Discord and Slack adapters and its Telegram gateway apply alike: what counts as a text file or an
 * image, and how big each may be; and turnstream's cap on every other document.
 */

/** An image's cap, and a text file's. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_TEXT_FILE_BYTES = 512 * 1024;
/**
 * turnstream's cap on any other document a user sends (a PDF, an archive: a `file` attachment,
 * embedded in the prompt as a `resource` block when the agent takes one). Upstream refuses these;
 * 10 MiB, as an image, since both travel base64 in the event and the prompt. A bigger one is not
 * downloaded: the agent gets the "not delivered" note (`size exceeded: …`).
 */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** A message's text files: how many, and their bytes together. */
export const MAX_TEXT_FILES = 5;
export const MAX_TEXT_TOTAL_BYTES = 1024 * 1024;

const TEXT_MIMES: ReadonlySet<string> = new Set(["application/json", "application/xml", "application/javascript", "application/x-yaml", "application/x-sh", "application/toml", "application/x-toml"]);
// By extension, or by one of these whole names, case-insensitive.
const TEXT_EXTENSIONS: ReadonlySet<string> = new Set(
  "txt csv log md json jsonl yaml yml toml xml rs py js ts jsx tsx go java c cpp h hpp rb sh bash zsh fish ps1 bat sql html css scss less ini cfg conf env".split(" "),
);
const TEXT_NAMES: ReadonlySet<string> = new Set("dockerfile makefile justfile rakefile gemfile procfile vagrantfile .gitignore .dockerignore .editorconfig".split(" "));
const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set(["png", "jpg", "jpeg", "gif", "webp"]);

/** A text file by its name: a known extension or a known whole name. */
export function isTextFileName(filename: string): boolean {
  const lower = filename.toLowerCase();
  return TEXT_NAMES.has(lower) || TEXT_EXTENSIONS.has(extensionOf(lower));
}

/** A text file by its MIME type (without parameters) or its name. */
export function isTextFile(mime: string, filename: string): boolean {
  return mime.startsWith("text/") || TEXT_MIMES.has(mime) || isTextFileName(filename);
}

/** An image by its MIME type or its extension. */
export function isImageFile(mime: string, filename: string): boolean {
  return mime.startsWith("image/") || IMAGE_EXTENSIONS.has(extensionOf(filename));
}

/** The lower-case extension after the last dot; `""` for a name without one (or a dot file's whole name). */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf(".");
  return dot <= 0 ? "" : filename.slice(dot + 1).toLowerCase();
}

/** A MIME type without its parameters and surrounding spaces: `text/plain; charset=utf-8` → `text/plain` (upstream's `strip_mime_params`). */
export function stripMimeParams(mime: string): string {
  const semicolon = mime.indexOf(";");
  return (semicolon < 0 ? mime : mime.slice(0, semicolon)).trim();
}
