import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The README's `npm install` must print no engine warning on the Node it supports (package.json
// `engines`, >= 20.19): every package in the lockfile has to accept that Node. @nats-io/nuid 3.0.0
// claims Node >= 22, so package.json overrides it with 2.0.3 (the same `nuid` / `Nuid` exports).
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as { packages: Record<string, { engines?: { node?: string } }> };
const SUPPORTED: readonly [number, number, number] = [20, 19, 0];

/** Whether `range` (the forms npm packages use: `>=X[.Y[.Z]]`, `X.x`, `^X.Y.Z`, `*`, alternatives with `||`) admits `version`. */
function admits(range: string, version: readonly [number, number, number]): boolean {
  return range.split("||").some((alternative) => {
    const text = alternative.trim().replace(/\.x\b/g, "");
    if (text === "*" || text === "") return true;
    const match = /^(>=|\^)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text);
    if (match === null) throw new Error(`an engines range this test cannot read: ${JSON.stringify(range)}`);
    const wanted = [Number(match[2]), Number(match[3] ?? 0), Number(match[4] ?? 0)] as const;
    const atLeast = version[0] !== wanted[0] ? version[0] > wanted[0] : version[1] !== wanted[1] ? version[1] > wanted[1] : version[2] >= wanted[2];
    return match[1] === "^" ? atLeast && version[0] === wanted[0] : atLeast;
  });
}

describe("engines on the supported Node", () => {
  it("reads the ranges npm packages write", () => {
    expect(admits(">= 18.x", SUPPORTED)).toBe(true);
    expect(admits(">= 22.x", SUPPORTED)).toBe(false);
    expect(admits("^20.19.0 || >=22.12.0", SUPPORTED)).toBe(true);
    expect(admits("^20.20.0 || >=22.12.0", SUPPORTED)).toBe(false);
  });

  it("every package in the lockfile accepts Node 20.19, so npm install warns of none", () => {
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node !== undefined && !admits(entry.engines.node, SUPPORTED))
      .map(([name, entry]) => `${name} (${entry.engines?.node})`);
    expect(refusing).toEqual([]);
  });
});
