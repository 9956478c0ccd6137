import { describe, expect, it } from "vitest";
import { choosePermission, decidePermission } from "../../src/acp/permission.js";

const option = (kind: string) => ({ optionId: `opt-${kind}`, kind });

describe("choosePermission (OpenAB's auto-answer rule)", () => {
  it("selects allow_always over everything else", () => {
    expect(choosePermission([option("allow_once"), option("reject_once"), option("allow_always")])).toEqual({
      outcome: "selected",
      optionId: "opt-allow_always",
    });
  });

  it("selects allow_once when there is no allow_always", () => {
    expect(choosePermission([option("reject_always"), option("allow_once")])).toEqual({ outcome: "selected", optionId: "opt-allow_once" });
  });

  it("selects the first option that is not a reject when there is no allow", () => {
    expect(choosePermission([option("reject_once"), option("allow_persistent"), option("something_else")])).toEqual({
      outcome: "selected",
      optionId: "opt-allow_persistent",
    });
  });

  it("selects an option without a kind as not-a-reject", () => {
    expect(choosePermission([option("reject_once"), { optionId: "plain" }])).toEqual({ outcome: "selected", optionId: "plain" });
  });

  it("answers cancelled when every option is a reject", () => {
    expect(choosePermission([option("reject_once"), option("reject_always")])).toEqual({ outcome: "cancelled" });
  });

  it("answers cancelled for an empty option list", () => {
    expect(choosePermission([])).toEqual({ outcome: "cancelled" });
  });

  it("selects allow_always when the agent sends no options at all (legacy agents)", () => {
    expect(choosePermission(undefined)).toEqual({ outcome: "selected", optionId: "allow_always" });
  });
});

describe("decidePermission: [agent] permission_mode", () => {
  const all = [option("reject_always"), option("reject_once"), option("allow_once"), option("allow_always")];
  const onlyAlways = [option("allow_always"), option("reject_always")];
  const unknownAndReject = [option("allow_persistent"), option("reject_once")];
  const rejectAlwaysOnly = [option("allow_always"), option("reject_always")];
  const selected = (kind: string) => ({ outcome: { outcome: "selected", optionId: `opt-${kind}` }, kind });
  const cancelled = { outcome: { outcome: "cancelled" }, kind: "none" };

  it.each([
    ["allow_always", "all four kinds", all, selected("allow_always")],
    ["allow_always", "allow_always and reject_always", onlyAlways, selected("allow_always")],
    ["allow_always", "an unknown kind and reject_once", unknownAndReject, selected("allow_persistent")],
    ["allow_always", "no options (legacy)", undefined, { outcome: { outcome: "selected", optionId: "allow_always" }, kind: "allow_always" }],
    ["allow_once", "all four kinds", all, selected("allow_once")],
    ["allow_once", "allow_always and reject_always: never the always options", onlyAlways, cancelled],
    ["allow_once", "an unknown kind and reject_once: the reject, not the unknown", unknownAndReject, selected("reject_once")],
    ["allow_once", "no options (legacy)", undefined, { outcome: { outcome: "selected", optionId: "allow_once" }, kind: "allow_once" }],
    ["reject", "all four kinds", all, selected("reject_once")],
    ["reject", "allow_always and reject_always: never reject_always", rejectAlwaysOnly, cancelled],
    ["reject", "an unknown kind and reject_once", unknownAndReject, selected("reject_once")],
    ["reject", "no options (legacy)", undefined, cancelled],
    ["reject", "no options offered at all", [], cancelled],
  ] as const)("%s with %s", (mode, _what, options, expected) => {
    expect(decidePermission(options, mode)).toEqual(expected);
  });

  it("allow_always is choosePermission, OpenAB's rule", () => {
    for (const options of [all, onlyAlways, unknownAndReject, [], undefined]) {
      expect(decidePermission(options, "allow_always").outcome).toEqual(choosePermission(options));
    }
  });
});
