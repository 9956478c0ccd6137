import { type JsonPointer, JsonPointerError, parseJsonPointer } from "./jsonPointer.js";

/**
 * A webhook's `prompt`: literal text with `{{<json pointer>}}` substitutions into the delivery's
 * JSON body (`New alert: {{/alert/title}}`). Spaces just inside the braces are ignored; there is
 * no escape and no logic. Parsed once, when the config is read.
 */
export type PromptTemplate = readonly TemplatePart[];

export type TemplatePart = { readonly kind: "text"; readonly text: string } | { readonly kind: "pointer"; readonly pointer: JsonPointer };

/** A template that cannot be parsed: `reason` says where, for a config problem. */
export class PromptTemplateError extends Error {
  override readonly name = "PromptTemplateError";
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(reason, options);
  }
}

const OPEN = "{{";
const CLOSE = "}}";

/** The parts of `text`, in order; throws `PromptTemplateError` for an unclosed `{{` or a substitution that is not a JSON pointer. One pass. */
export function parsePromptTemplate(text: string): PromptTemplate {
  const parts: TemplatePart[] = [];
  let at = 0;
  for (let open = text.indexOf(OPEN); open !== -1; open = text.indexOf(OPEN, at)) {
    const close = text.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) throw new PromptTemplateError(`"{{" at character ${open + 1} is never closed with "}}"`);
    if (open > at) parts.push({ kind: "text", text: text.slice(at, open) });
    const source = text.slice(open + OPEN.length, close).trim();
    try {
      parts.push({ kind: "pointer", pointer: parseJsonPointer(source) });
    } catch (err) {
      if (!(err instanceof JsonPointerError)) throw err;
      throw new PromptTemplateError(`{{${source}}} at character ${open + 1}: ${err.message}`, { cause: err });
    }
    at = close + CLOSE.length;
  }
  if (at < text.length) parts.push({ kind: "text", text: text.slice(at) });
  return parts;
}
