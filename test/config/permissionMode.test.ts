import { describe, expect, it } from "vitest";
import { ConfigError, parseConfigText, resolveConfig } from "../../src/config/index.js";

function problems(text: string): string[] {
  try {
    parseConfigText(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).lines();
  }
  return [];
}

describe("[agent] permission_mode", () => {
  it("defaults to allow_always (OpenAB's rule), and its chat keys to the issue's defaults", () => {
    expect(resolveConfig({}).agent).toMatchObject({
      permission_mode: "allow_always",
      permission_answerers: "requester",
      permission_timeout_secs: 300,
      permission_fallback: "reject",
      ask_timeout_secs: 600,
    });
  });

  it.each(["allow_always", "allow_once", "reject", "ask"])("accepts %s", (mode) => {
    expect(parseConfigText(`[agent]\npermission_mode = "${mode}"\n`).agent.permission_mode).toBe(mode);
  });

  it("reads the keys of asking in the chat", () => {
    const agent = parseConfigText(
      `[agent]\npermission_mode = "ask"\npermission_answerers = "allowed_users"\npermission_timeout_secs = 30\npermission_fallback = "allow_once"\nask_timeout_secs = 45\n`,
    ).agent;
    expect(agent).toMatchObject({ permission_mode: "ask", permission_answerers: "allowed_users", permission_timeout_secs: 30, permission_fallback: "allow_once", ask_timeout_secs: 45 });
  });

  it.each([
    ['permission_mode = "always"', 'agent.permission_mode: "always" is not allowed; expected one of allow_always, allow_once, reject, ask'],
    ["permission_mode = true", "agent.permission_mode: expected one of allow_always, allow_once, reject, ask"],
    ['permission_fallback = "ask"', 'agent.permission_fallback: "ask" is not allowed; expected one of allow_always, allow_once, reject'],
    ['permission_answerers = "anyone"', 'agent.permission_answerers: "anyone" is not allowed; expected one of requester, allowed_users'],
    ["permission_timeout_secs = 0", "agent.permission_timeout_secs"],
    ["ask_timeout_secs = -1", "agent.ask_timeout_secs"],
  ])("refuses %s with one line", (line, expected) => {
    const lines = problems(`[agent]\n${line}\n`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(expected);
  });

  it("reports every bad key of the section at once", () => {
    expect(problems(`[agent]\npermission_fallback = "ask"\nask_timeout_secs = 0\n`)).toHaveLength(2);
  });
});
