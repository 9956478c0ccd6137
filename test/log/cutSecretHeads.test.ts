import { describe, expect, it } from "vitest";
import { truncationMarker } from "../../operators/ingress/untrustedText.js";
import { maskCutHeads } from "../../src/log/cutSecretHeads.js";
import { expectLinear } from "../helpers/linearTime.js";

const FORMS = ["Zq7XenvK-0c3d55-Wq", 'quo\\"te-s3cret'];
const mask = (line: string) => maskCutHeads(line, FORMS, "***", 4);
const cut = truncationMarker(1234);

describe("maskCutHeads", () => {
  it("masks the longest head of a secret that ends right at untrustedText's cut", () => {
    expect(mask(`"line":"xx Zq7XenvK-0c${cut}"`)).toBe(`"line":"xx ***${cut}"`);
    expect(mask(`"a":"Zq7X${cut}","b":"y quo\\"te-s${cut}"`)).toBe(`"a":"***${cut}","b":"y ***${cut}"`);
  });

  it("leaves a head under four characters, a head not at a cut, and a line without a cut", () => {
    expect(mask(`"line":"xx Zq7${cut}"`)).toBe(`"line":"xx Zq7${cut}"`);
    expect(mask(`"line":"Zq7XenvK and more${cut}"`)).toBe(`"line":"Zq7XenvK and more${cut}"`);
    expect(mask(`"line":"Zq7XenvK-0c"`)).toBe(`"line":"Zq7XenvK-0c"`);
  });

  it("masks a URL authority the cut ended, user info or not", () => {
    expect(mask(`"u":"see https://bob:hunter2${cut}"`)).toBe(`"u":"see https://***${cut}"`);
    expect(mask(`"u":"see https://h.example${cut}"`)).toBe(`"u":"see https://***${cut}"`);
    expect(mask(`"u":"see https://h.example.com/pa${cut}"`)).toBe(`"u":"see https://h.example.com/pa${cut}"`);
  });

  it.each([
    ["cuts each just after a secret's head", `"f":"xx Zq7XenvK-0c3d55-W${cut}",`, FORMS],
    ["cuts after a near match of a periodic secret", `"f":"${"a".repeat(63)}${cut}",`, [`${"a".repeat(64)}b`]],
  ])("is linear in the line: %s", (_name, piece, forms) => {
    // Ten lines of 5,000 pieces against one of 50,000: linear is ~1×, quadratic ~10×.
    expectLinear((count: number) => piece.repeat(count), (line) => maskCutHeads(line, forms, "***", 4), 50_000);
  });
});
