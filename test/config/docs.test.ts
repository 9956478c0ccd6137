import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { keyPaths, keysAt } from "../../src/config/shape.js";

const reference = readFileSync(new URL("../../docs/config-reference.md", import.meta.url), "utf8");

describe("docs/config-reference.md", () => {
  const keys = keyPaths(configSchema);

  it("walks every section and nested table of the schema", () => {
    expect(keys).toContain("reactions.timing.stall_soft_ms");
    expect(keys).toContain("reactions.emojis.coding");
    expect(keys).toContain("gateway.url");
    expect(keys).toContain("agent.inherit_env");
    expect(keys.length).toBeGreaterThan(90);
  });

  it.each(keys.filter((key) => key.includes(".")))("documents %s", (key) => {
    expect(reference).toContain(`\`${key}\``);
  });

  it.each(keys.filter((key) => !key.includes(".")))("has a section for [%s]", (section) => {
    expect(reference).toContain(`[${section}]`);
  });

  // A table of tables keyed by name (`[rate_limits.<platform>]`): its keys, under the placeholder.
  it.each(keysAt(configSchema, ["rate_limits", "any"]))("documents rate_limits.<platform>.%s", (key) => {
    expect(reference).toContain(`\`rate_limits.<platform>.${key}\``);
  });

  // An array of tables (`[[webhooks.endpoints]]`): one entry's keys, under the array's name.
  it.each(keysAt(configSchema, ["webhooks", "endpoints", 0]))("documents webhooks.endpoints.%s", (key) => {
    expect(reference).toContain(`\`webhooks.endpoints.${key}\``);
  });

  // An array of tables (`[[cron.jobs]]`): one entry's keys, under the array's name.
  it.each(keysAt(configSchema, ["cron", "jobs", 0]))("documents cron.jobs.%s", (key) => {
    expect(reference).toContain(`\`cron.jobs.${key}\``);
  });

  it.each(keysAt(configSchema, ["rate_limits", "any", "per_bot"]))("documents rate_limits.<platform>.<bucket>.%s", (key) => {
    expect(reference).toContain(`\`rate_limits.<platform>.<bucket>.${key}\``);
  });
});
