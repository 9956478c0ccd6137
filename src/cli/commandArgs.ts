import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./io.js";

/** `parseArgs` (strict unless told otherwise) with its errors turned into one-line usage errors. */
export function parseCommandArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config); // strict by default
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err), { cause: err });
  }
}
