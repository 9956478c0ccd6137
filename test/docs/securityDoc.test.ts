import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const doc = readFileSync(new URL("docs/security.md", root), "utf8");

describe("docs/security.md", () => {
  // Each promise names the test that holds it; a renamed or deleted test must not leave a promise untested.
  const named = [...new Set(doc.match(/test\/[\w/.-]+\.test\.ts/g) ?? [])];

  it("names the tests that hold its promises", () => {
    expect(named.length).toBeGreaterThan(15);
  });

  for (const path of named) {
    it(`${path} exists`, () => {
      expect(existsSync(new URL(path, root))).toBe(true);
    });
  }

  it("is linked from the README", () => {
    expect(readFileSync(new URL("README.md", root), "utf8")).toContain("(docs/security.md)");
  });
});
