/** A MIME type without its parameters and surrounding spaces: `text/plain; charset=utf-8` → `text/plain` (upstream's `strip_mime_params`). */
export function stripMimeParams(mime: string): string {
  const semicolon = mime.indexOf(";");
  return (semicolon < 0 ? mime : mime.slice(0, semicolon)).trim();
}
