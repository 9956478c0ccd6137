import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("docs/operators.md", () => {
  const guide = read("docs/operators.md");

  // The guide shows these files; the suite runs them. This keeps the two from drifting apart.
  for (const example of [
    "docs/examples/keywordFilter.ts",
    "docs/examples/keywordFilter.marble.test.ts",
    "docs/examples/floodGuard.ts",
    "docs/examples/floodGuard.marble.test.ts",
  ]) {
    it(`shows ${example} verbatim`, () => {
      expect(guide).toContain(read(example).trimEnd());
    });
  }

  it("lists every public export of turnstream/operators", async () => {
    const operators = await import("../../operators/index.js");
    // A function is listed with its call (`name(`), a constant by its name alone.
    for (const [name, value] of Object.entries(operators)) expect(guide).toContain(typeof value === "function" ? `\`${name}(` : `\`${name}\``);
  });
});

describe("README", () => {
  /** The README's ```toml block that has `section`. */
  const tomlWith = (section: string) => [...read("README.md").matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1] as string).find((toml) => toml.includes(section));

  it("shows a minimal config that check-config accepts", async () => {
    const { parseConfigText } = await import("../../src/config/index.js");
    const toml = tomlWith("[gateway]");
    expect(toml).toBeDefined();
    const config = parseConfigText(toml ?? "", { env: {} });
    expect(config.gateway?.url).toBe("ws://127.0.0.1:8080/ws");
    expect(config.delivery.mode).toBe("structured");
  });

  it("shows a Telegram config that check-config accepts: a polling bot for one user, and nothing else", async () => {
    const { parseConfigText } = await import("../../src/config/index.js");
    const toml = tomlWith("[telegram]");
    expect(toml).toBeDefined();
    const config = parseConfigText(toml ?? "", { env: {} });
    expect(config.telegram?.mode).toBe("polling");
    expect(config.telegram?.allowed_users).toEqual(["123456789"]);
    expect(config.gateway).toBeUndefined();
  });

  it("shows the two commands: install-and-run and the tests", () => {
    const readme = read("README.md");
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm test");
  });
});
