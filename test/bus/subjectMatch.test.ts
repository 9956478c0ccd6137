import { describe, expect, it } from "vitest";
import { InvalidSubjectError } from "../../src/bus/errors.js";
import { subjectMatches, validateSubject } from "../../src/bus/subjectMatch.js";

describe("subjectMatches", () => {
  it.each([
    // exact
    ["turn.0", "turn.0", true],
    ["turn.0", "turn.1", false],
    ["turn", "turn.0", false],
    ["turn.0", "turn", false],
    // `*` is exactly one token
    ["turn.*", "turn.0", true],
    ["*.0", "turn.0", true],
    ["turn.*.in", "turn.a.in", true],
    ["turn.*", "turn", false],
    ["turn.*", "turn.0.x", false],
    ["turn.*.in", "turn.a.out", false],
    ["*", "turn", true],
    ["*", "turn.0", false],
    // `>` is one or more trailing tokens
    ["turn.>", "turn.0", true],
    ["turn.>", "turn.0.x.y", true],
    ["turn.>", "turn", false],
    ["turn.>", "send.0", false],
    [">", "turn", true],
    [">", "turn.0.x", true],
    ["*.>", "turn", false],
    ["*.>", "turn.0", true],
    ["turn.*.>", "turn.0", false],
    ["turn.*.>", "turn.0.x", true],
    // wildcard tokens are compared token by token, not as text
    ["turn.*", "turnx.0", false],
    ["tu.>", "turn.0", false],
  ])("%s matches %s: %s", (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe("validateSubject", () => {
  it.each(["turn", "turn.0", "turnstream.send.discord", "a-b_c.D9", "$JS.API"])("accepts %j for publishing", (subject) => {
    expect(() => validateSubject(subject, { wildcards: false })).not.toThrow();
  });

  it.each(["turn.*", "turn.>", ">", "*", "*.x.>", "turn.*.in"])("accepts %j for subscribing", (subject) => {
    expect(() => validateSubject(subject, { wildcards: true })).not.toThrow();
  });

  it.each([
    ["", true, "empty subject"],
    ["turn..0", true, "empty token"],
    [".turn", true, "empty token"],
    ["turn.", true, "empty token"],
    ["turn 0", true, "contains whitespace"],
    ["turn.\t0", true, "contains whitespace"],
    ["turn.0\n", true, "contains whitespace"],
    ["turn.*", false, "wildcards are not allowed here"],
    ["turn.>", false, "wildcards are not allowed here"],
    [">", false, "wildcards are not allowed here"],
    ["turn.>.x", true, "'>' must be the last token"],
    [">.x", true, "'>' must be the last token"],
    ["turn.a*", true, "wildcards must be whole tokens"],
    ["turn.>a", true, "wildcards must be whole tokens"],
    ["turn.a*", false, "wildcards must be whole tokens"],
  ])("rejects %j (wildcards: %s): %s", (subject, wildcards, reason) => {
    let caught: unknown;
    try {
      validateSubject(subject, { wildcards });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidSubjectError);
    expect(caught).toMatchObject({ subject, message: `invalid subject ${JSON.stringify(subject)}: ${reason}` });
  });
});
