import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText, resolveConfig } from "../../src/config/index.js";

describe("[agent] permission_mode", () => {
  it("defaults to allow_always (OpenAB's rule)", () => {
    expect(resolveConfig({}).agent.permission_mode).toBe("allow_always");
  });

  it.each(["allow_always", "allow_once", "reject"])("accepts %s", (mode) => {
    expect(parseConfigText(`[agent]\npermission_mode = "${mode}"\n`).agent.permission_mode).toBe(mode);
  });

  it.each([
    ['"ask"', 'agent.permission_mode: "ask" is not allowed; expected one of allow_always, allow_once, reject'],
    ["true", "agent.permission_mode: expected one of allow_always, allow_once, reject"],
  ])("refuses %s with one line", (value, line) => {
    const error = (() => {
      try {
        parseConfigText(`[agent]\npermission_mode = ${value}\n`);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).lines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(line);
  });
});
