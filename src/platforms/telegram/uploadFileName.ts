/**
 * A file's name as it goes into the upload, so that Telegram reads it back whole: grammY writes it
 * unquoted into the part's header (`filename=report.pdf`, and throws on a line break), and the Bot
 * API server ends the value at the first `;` and strips quotes around it. So `;` and `"` become `_`
 * and line breaks go; a name left empty becomes `file`.
 */
export function uploadFileName(name: string): string {
  const safe = name.replace(/[\r\n]/g, "").replace(/[;"]/g, "_").trim();
  return safe === "" ? "file" : safe;
}
