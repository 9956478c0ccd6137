import { describe, expect, it } from "vitest";
import { builtInLookupTable, lookupTool, runLookup } from "../../src/agent/lookupTool.js";

describe("the lookup demo tool", () => {
  it("answers the first topic the query mentions, case-insensitively", () => {
    expect(runLookup('{"query":"my FLIGHT status"}', builtInLookupTable)).toBe(builtInLookupTable["flight"]);
    expect(runLookup('{"query":"x"}', { x: "canned" })).toBe("canned");
  });

  it("says what it knows when nothing matches, and what it needs when the input is bad", () => {
    expect(runLookup('{"query":"stocks"}', { flight: "f", hotel: "h" })).toBe('nothing found for "stocks"; known topics: flight, hotel');
    expect(runLookup("not json", builtInLookupTable)).toBe('lookup needs {"query": "<topic>"}');
    expect(runLookup('{"q":"flight"}', builtInLookupTable)).toBe('lookup needs {"query": "<topic>"}');
  });

  it("is a function tool with a query parameter, naming its topics", () => {
    const tool = lookupTool({ flight: "f", hotel: "h" });
    expect(tool.function.name).toBe("lookup");
    expect(tool.function.description).toContain("flight, hotel");
    expect(tool.function.parameters).toMatchObject({ type: "object", properties: { query: { type: "string" } }, required: ["query"] });
    expect(tool.function.parameters).not.toHaveProperty("$schema");
  });
});
