import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../src/config/index.js";
import { OPENAB_SECTIONS } from "../../src/config/openabSections.js";
import { configSchema } from "../../src/config/schema.js";
import { keysAt } from "../../src/config/shape.js";

// One list of OpenAB's config sections and keys (docs/openab-config-keys.json), checked against
// turnstream's config schema, its refusals and docs/migrating-from-openab.md.
const list = JSON.parse(readFileSync(new URL("../../docs/openab-config-keys.json", import.meta.url), "utf8")) as Record<string, string[] | string>;
const sections = Object.entries(list).filter((entry): entry is [string, string[]] => Array.isArray(entry[1]));
const migration = readFileSync(new URL("../../docs/migrating-from-openab.md", import.meta.url), "utf8");

function problemLines(input: unknown): string[] {
  try {
    resolveConfig(input, { env: {} });
  } catch (err) {
    if (err instanceof ConfigError) return err.lines();
    throw err;
  }
  return [];
}

describe("OpenAB's config reference, section by section", () => {
  it.each(sections)("[%s]: every key is in the migration table", (section, keys) => {
    for (const key of keys) expect(migration).toContain(`\`${section}.${key}\``);
  });

  it.each(sections.filter(([section]) => OPENAB_SECTIONS[section.split(".")[0] as string] === undefined))(
    "[%s]: a section turnstream reads, with every one of OpenAB's keys by name",
    (section, keys) => {
      // An array of tables (`[[cron.jobs]]`) is checked by one entry's keys.
      const path = section.split(".");
      const known = [...keysAt(configSchema, path), ...keysAt(configSchema, [...path, 0])];
      for (const key of keys) expect(known).toContain(key);
    },
  );

  it.each(Object.keys(OPENAB_SECTIONS))("[%s]: refused with its own line, never a bare unknown key", (section) => {
    const lines = problemLines({ [section]: {} });
    expect(lines).toEqual([`${section}: ${OPENAB_SECTIONS[section]}`]);
    expect(lines[0]).not.toContain("unknown key");
  });

  it("platform adapter sections point at [gateway]; the others say what to do instead", () => {
    expect(problemLines({ line: {} })[0]).toMatch(/^line: is an OpenAB platform adapter; turnstream speaks Telegram, Discord and Slack itself \(\[telegram\], \[discord\], \[slack\]\) and reaches other chat platforms through an OpenAB gateway/);
    expect(problemLines({ markdown: { tables: "code" } })[0]).toContain("replies keep their tables as written");
  });

  it("[cron] is read, no longer refused", () => {
    expect(OPENAB_SECTIONS["cron"]).toBeUndefined();
    expect(problemLines({ cron: { jobs: [] } })).toEqual([]);
  });

  it("a typo is still an unknown key with a guess", () => {
    expect(problemLines({ gatway: {} })[0]).toMatch(/^gatway: unknown key \(did you mean "gateway"\?\)/);
  });
});
