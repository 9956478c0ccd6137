import { stringify } from "smol-toml";
import { loadConfigFile, maskSecrets } from "../../config/index.js";
import { parseCommandArgs } from "../commandArgs.js";
import { exitCodes } from "../exitCodes.js";
import { UsageError, type CliIo } from "../io.js";
import { checkConfigUsage } from "../usage.js";

/** `turnstream check-config [--json] FILE` */
export async function checkConfigCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    options: { json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  if (values.help) {
    io.stdout(`${checkConfigUsage}\n`);
    return exitCodes.ok;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError("check-config needs a FILE; run \"turnstream check-config --help\"");
  if (extra.length > 0) throw new UsageError(`check-config takes one FILE, got ${positionals.length}`);

  const masked = withoutUndefined(maskSecrets(await loadConfigFile(file, { env: io.env })));
  io.stdout(values.json ? `${JSON.stringify(masked, null, 2)}\n` : `# ${file}: valid; resolved with defaults, secrets masked\n${stringify(masked)}\n`);
  return exitCodes.ok;
}

/** TOML has no null or undefined: an unset optional key is simply absent. */
function withoutUndefined(value: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
