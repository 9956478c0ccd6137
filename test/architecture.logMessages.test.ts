import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sources } from "./helpers/sourceTree.js";

const root = fileURLToPath(new URL("..", import.meta.url));


const read = (dir: string) => sources(join(root, dir)).map((path) => ({ path: relative(root, path), text: readFileSync(path, "utf8") }));

/** A name that says "this is a log line's `msg`": `*_LOG`, `*_LOG_*`, `*_WARNING`, `*_LOG_MESSAGE`, `*_MSG`. */
const logMessageName = /^[A-Z0-9_]*(?:_LOG|_LOG_[A-Z0-9_]+|_WARNING|_MSG)$/;

/** Every name a file exports: `export const|let|var|function|class NAME` and the names of `export { a, b as NAME }`. */
function exportedNames(text: string): string[] {
  const declared = [...text.matchAll(/export\s+(?:declare\s+)?(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1] as string);
  const listed = [...text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] as string)
      .split(",")
      .map((item) => item.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()?.trim() ?? "")
      .filter(Boolean),
  );
  return [...declared, ...listed];
}

/** Every `msg` literal of a logger call in src/ and every string constant src/ names `*_LOG` / `*_WARNING`. */
function srcLogMessages(): Set<string> {
  const call = /\.(?:trace|debug|info|warn|error|fatal)\(\s*(?:[\w.]+|\{[\s\S]*?\})\s*,\s*"([^"]+)"\s*,?\s*\)|\.(?:trace|debug|info|warn|error|fatal)\(\s*"([^"]+)"\s*\)/g;
  const found = new Set<string>();
  for (const { text } of read("src")) {
    for (const match of text.matchAll(call)) found.add((match[1] ?? match[2]) as string);
    for (const match of text.matchAll(/export const \w+_(?:LOG|WARNING)\s*=\s*\n?\s*"([^"]+)"/g)) found.add(match[1] as string);
  }
  return found;
}

// Operators return data (reports, plans, outcomes with a stable `reason`); src/ owns what a log
// line says. A message string in operators/ would make a pure function the owner of an
// operator-facing interface it never writes.
describe("operators return data, src/ owns log messages", () => {
  const operators = read("operators");

  it("no file in operators/ exports a log-message constant (a name matching *_LOG, *_LOG_*, *_WARNING or *_MSG)", () => {
    const offenders = operators.flatMap(({ path, text }) => exportedNames(text).filter((name) => logMessageName.test(name)).map((name) => `${path}: ${name}`));
    expect(offenders).toEqual([]);
  });

  it("no string constant exported from operators/ holds the msg of a line src/ logs (whatever its name)", () => {
    const messages = srcLogMessages();
    expect(messages.size).toBeGreaterThan(20);
    const offenders = operators.flatMap(({ path, text }) =>
      [...text.matchAll(/export\s+const\s+(\w+)\s*=\s*\n?\s*(?:"([^"]*)"|'([^']*)'|`([^`$]*)`)/g)]
        .filter((m) => messages.has((m[2] ?? m[3] ?? m[4]) as string))
        .map((m) => `${path}: ${m[1] as string}`),
    );
    expect(offenders).toEqual([]);
  });

  it("the rule's name pattern matches what it must, and nothing user-facing", () => {
    for (const name of ["SEQUENTIAL_DELIVERED_LOG", "TRIAGE_WAKE_LOG", "SEQUENTIAL_CAPPED_WARNING", "TURN_LOG_MESSAGE", "DROPPED_MSG"]) expect(name).toMatch(logMessageName);
    for (const name of ["NO_RESPONSE_TEXT", "RESET_REPLY", "SESSION_RESET_NOTICE", "PATH_NOT_READ_STATUS", "TURN_SCHEMA", "LOGGER", "CATALOG"]) expect(name).not.toMatch(logMessageName);
    expect(exportedNames('export { a, b as X_LOG, type C }\nexport const Y_WARNING = "y";')).toEqual(["Y_WARNING", "a", "X_LOG", "C"]);
  });
});
