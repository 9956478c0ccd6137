import type { ProcessingMode } from "../../operators/dispatch/dispatchKey.js";
import type { ConfigProblem } from "./errors.js";
import type { Config } from "./schema.js";

/**
 * OpenAB's message-processing keys (`message_processing_mode`, `max_buffered_messages`,
 * `max_batch_tokens`), which `[gateway]`, `[discord]` and `[slack]` each carry. turnstream's
 * workers run one lane rule for every platform, so the sections that are present must agree; a
 * config where they do not is refused (`processingProblems`) rather than run with one of them.
 */
export interface Processing {
  readonly message_processing_mode: ProcessingMode;
  readonly max_buffered_messages: number;
  readonly max_batch_tokens: number;
}

/** Upstream's defaults: what a file without any of the keys runs with. */
export const DEFAULT_PROCESSING: Processing = { message_processing_mode: "per-message", max_buffered_messages: 10, max_batch_tokens: 24_000 };

const KEYS = ["message_processing_mode", "max_buffered_messages", "max_batch_tokens"] as const;
const SECTIONS = ["gateway", "discord", "slack"] as const;

/** The present sections that carry the keys, in file order of the docs: `[gateway]`, `[discord]`, `[slack]`. */
function carriers(config: Pick<Config, (typeof SECTIONS)[number]>): { readonly name: string; readonly keys: Processing }[] {
  return SECTIONS.flatMap((name) => {
    const section = config[name];
    return section === undefined ? [] : [{ name, keys: section }];
  });
}

/** What the workers run with: the present sections' agreed values (`processingProblems` refuses a disagreement), else upstream's defaults. */
export function processingOf(config: Pick<Config, (typeof SECTIONS)[number]>): Processing {
  const first = carriers(config)[0]?.keys;
  if (first === undefined) return DEFAULT_PROCESSING;
  return { message_processing_mode: first.message_processing_mode, max_buffered_messages: first.max_buffered_messages, max_batch_tokens: first.max_batch_tokens };
}

/** One problem per key on which two present sections differ, naming both values (a default counts as given). */
export function processingProblems(config: Pick<Config, (typeof SECTIONS)[number]>): ConfigProblem[] {
  const [first, ...others] = carriers(config);
  if (first === undefined) return [];
  return others.flatMap((other) =>
    KEYS.filter((key) => other.keys[key] !== first.keys[key]).map((key) => ({
      path: `${other.name}.${key}`,
      message: `is ${JSON.stringify(other.keys[key])} and ${first.name}.${key} is ${JSON.stringify(first.keys[key])} (set or defaulted): turnstream runs one message-processing rule for every platform, so set both the same`,
    })),
  );
}
