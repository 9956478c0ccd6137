import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sources } from "./helpers/sourceTree.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const wireDir = join(root, "src", "wire");
const pipelineDir = join(root, "src", "pipeline");
const busDir = join(root, "src", "bus");
const metricsDir = join(root, "src", "metrics");


const relative = (path: string) => path.slice(root.length);

/**
 * The names `src/wire/subjects.ts` builds, read from the file itself so this check follows it:
 * the text after `${prefix}` or `${name}` in each template, up to the next interpolation or
 * wildcard (`.turn.`, `.send.`, `.edges`, `_workers`, `_p`, `_turns`, `_leases`, …), and the default prefix.
 */
function wireSpellings(): { suffixes: string[]; defaultPrefix: string } {
  const text = readFileSync(join(wireDir, "subjects.ts"), "utf8");
  const suffixes = [...text.matchAll(/\$\{(?:prefix|name)\}([^`$*>]+)/g)].map((match) => match[1] as string);
  const defaultPrefix = /prefix = "([^"]+)"/.exec(text)?.[1];
  if (suffixes.length === 0 || defaultPrefix === undefined) throw new Error("src/wire/subjects.ts no longer reads as expected: update this test");
  return { suffixes: [...new Set(suffixes)], defaultPrefix };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Matches code that builds a bus subject or name: an interpolation, or a quoted default prefix,
 * directly followed by one of the wire's suffixes, which ends there or at a separator. So
 * `${prefix}.turn.${n}` and "turnstream_leases" match; `openab.turn.v1`, `${count}.sends` do not.
 */
function subjectSpelling({ suffixes, defaultPrefix }: { suffixes: string[]; defaultPrefix: string }): RegExp {
  // A name goes on only past a separator: `turnstream_turns` is the stream, `turnstream_turns_total` a metric.
  const suffix = suffixes.map((s) => escape(s) + (/[._]$/.test(s) ? "" : "(?![A-Za-z0-9_])")).join("|");
  return new RegExp(`(?:\\}|["'\`]${escape(defaultPrefix)})(?:${suffix})`);
}

// docs/architecture.md: the edge↔worker wire lives in src/wire/. Subject names are spelled there
// and only there, so a rename cannot leave an edge and a worker talking past each other.
describe("the wire has one home", () => {
  const spelling = subjectSpelling(wireSpellings());

  it("the check knows what a spelled subject looks like", () => {
    const spelled = [
      "`${config.prefix}.turn.`",
      "subjects: [`${bus.prefix}.turn.>`]",
      "`${prefix}.send.${token}`",
      "`${prefix}.edges`",
      "`${name}_p${partition}`",
      "open(`${name}_leases`)",
      '"turnstream.turn.3"',
      '"turnstream_ledger"',
    ];
    const prose = [
      '"openab.turn.v1"',
      "`${count}.sends`",
      "`${name}_leasesCount`",
      "`${a}.turnover`",
      '"turnstream.json"',
      "names.turn(3)",
      // Prometheus metric names share the default prefix and are no bus names.
      '"turnstream_turns_total"',
      '"turnstream_partitions_owned"',
    ];
    expect(spelled.filter((code) => !spelling.test(code))).toEqual([]);
    expect(prose.filter((code) => spelling.test(code))).toEqual([]);
  });

  it("no file outside src/wire/ builds a subject or bus name", () => {
    const files = ["src", "operators", "bench", join("docs", "examples")]
      .flatMap((dir) => sources(join(root, dir)))
      .filter((path) => !path.startsWith(wireDir + "/") && !path.startsWith(metricsDir + "/"));
    const offenders = files.filter((path) => spelling.test(readFileSync(path, "utf8"))).map(relative);
    expect(offenders).toEqual([]);
  });

  // Prometheus metric names share the prefix by convention (`turnstream_sessions` is a gauge there
  // and a KV bucket on the bus), so src/metrics/ is left out above; it must then touch no bus name.
  it("src/metrics/ (metric names, not bus names) imports nothing from src/wire/ or src/bus/", () => {
    const offenders = sources(metricsDir).flatMap((path) => {
      const text = readFileSync(path, "utf8");
      const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(?\s*)"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1] as string);
      return specifiers.filter((specifier) => [wireDir, busDir].some((dir) => join(dirname(path), specifier).startsWith(dir + "/"))).map((specifier) => `${relative(path)} → ${specifier}`);
    });
    expect(offenders).toEqual([]);
  });

  it("src/bus/ imports nothing from src/pipeline/", () => {
    const offenders = sources(busDir).flatMap((path) => {
      const text = readFileSync(path, "utf8");
      const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(?\s*)"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1] as string);
      return specifiers.filter((specifier) => join(dirname(path), specifier).startsWith(pipelineDir + "/")).map((specifier) => `${relative(path)} → ${specifier}`);
    });
    expect(offenders).toEqual([]);
  });
});
