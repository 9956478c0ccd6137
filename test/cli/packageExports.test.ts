import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Imports a specifier from a real Node process in the package root, resolving through package.json "exports". */
function exportsOf(specifier: string): string[] {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).sort()));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
  return JSON.parse(out) as string[];
}

describe("package surface (built dist/ through package.json exports)", () => {
  it("turnstream exports the programmatic API", () => {
    expect(exportsOf("turnstream")).toEqual(
      expect.arrayContaining(["createBroker", "Pipeline", "MemoryBus", "resolveConfig", "loadConfigFile", "ConfigError", "subjects"]),
    );
  });

  it("turnstream/operators exports the pure operators", () => {
    expect(exportsOf("turnstream/operators")).toEqual(
      expect.arrayContaining(["parseGatewayFrame", "trustGate", "packPrompt", "serializeByKey", "sessionKey", "partitionOf", "collectTranscript", "planTextReply", "splitMessage"]),
    );
  });

  it("turnstream/testing exports the marble helper", () => {
    expect(exportsOf("turnstream/testing")).toEqual(["createTestScheduler"]);
  });
});
