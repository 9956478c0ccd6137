import * as z from "zod";
import { expecting } from "./problems/expected.js";
import { printValue } from "./problems/printValue.js";

export interface ChoiceSpec<C extends string> {
  /** The canonical values, as the resolved config holds them. */
  readonly values: readonly C[];
  /** Other spellings accepted (OpenAB's and peers'), each mapped to a canonical value. */
  readonly aliases?: Readonly<Record<string, C>>;
  /** Spellings that are deliberately refused, with the reason printed after the value. */
  readonly refused?: Readonly<Record<string, string>>;
}

/**
 * A string that must be one of a few values, compared case-insensitively, with aliases normalized
 * to the canonical value. A miss lists the values and aliases, so the operator need not look them up.
 */
export function choice<const C extends string>(spec: ChoiceSpec<C>) {
  const canonical = new Map<string, C>();
  for (const value of spec.values) canonical.set(value.toLowerCase(), value);
  const aliases = Object.entries(spec.aliases ?? {});
  for (const [alias, value] of aliases) canonical.set(alias.toLowerCase(), value);
  const refused = new Map(Object.entries(spec.refused ?? {}).map(([value, why]) => [value.toLowerCase(), why]));

  const oneOf = `one of ${spec.values.join(", ")}`;
  const listing = aliases.length > 0 ? `${oneOf} (aliases: ${aliases.map(([alias]) => alias).join(", ")})` : oneOf;

  const schema = z.string().transform((raw, ctx): C => {
    const key = raw.toLowerCase();
    const value = canonical.get(key);
    if (value !== undefined) return value;
    const why = refused.get(key);
    const message = why !== undefined ? `${printValue(raw)} ${why}` : `${printValue(raw)} is not allowed; expected ${listing}`;
    ctx.addIssue({ code: "custom", message, input: raw });
    return z.NEVER;
  });
  return expecting(schema, oneOf);
}
