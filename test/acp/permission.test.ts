import { describe, expect, it } from "vitest";
import { choosePermission } from "../../src/acp/permission.js";

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
