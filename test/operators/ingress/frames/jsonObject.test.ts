import { describe, expect, it } from "vitest";
import { isJsonObject } from "../../../../operators/ingress/frames/jsonObject.js";

describe("isJsonObject", () => {
  it("is true for objects parsed from JSON, false for arrays, null and every other value", () => {
    for (const text of ['{}', '{"a":1}', '{"__proto__":{"x":1}}']) expect(isJsonObject(JSON.parse(text))).toBe(true);
    for (const text of ["[]", "[{}]", "null", "1", '"s"', "true"]) expect(isJsonObject(JSON.parse(text))).toBe(false);
    expect(isJsonObject(undefined)).toBe(false);
  });
});
