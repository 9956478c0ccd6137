import { describe, expect, it } from "vitest";
import { agentEnvironment, sanitizeLogLine } from "../../src/acp/agentEnvironment.js";

const broker: NodeJS.ProcessEnv = {
  HOME: "/home/broker",
  PATH: "/usr/local/bin:/usr/bin",
  USER: "broker",
  SHELL: "/bin/bash",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  TELEGRAM_BOT_TOKEN: "123:abc",
  ANTHROPIC_API_KEY: "sk-ant-broker",
  GITHUB_TOKEN: "ghp_broker",
};

describe("agentEnvironment", () => {
  it("passes only HOME, PATH and USER from the broker when [agent] sets nothing", () => {
    expect(agentEnvironment({ env: {}, inherit_env: [] }, broker)).toStrictEqual({
      HOME: "/home/broker",
      PATH: "/usr/local/bin:/usr/bin",
      USER: "broker",
    });
  });

  it("never passes a broker secret that is not named", () => {
    const env = agentEnvironment({ env: { ANTHROPIC_API_KEY: "sk-ant-agent" }, inherit_env: ["GITHUB_TOKEN"] }, broker);
    expect(env).not.toHaveProperty("AWS_SECRET_ACCESS_KEY");
    expect(env).not.toHaveProperty("TELEGRAM_BOT_TOKEN");
    expect(env).not.toHaveProperty("SHELL");
    expect(Object.values(env)).not.toContain(broker.AWS_SECRET_ACCESS_KEY);
  });

  it("adds [agent].env, which may override the broker's HOME, PATH and USER", () => {
    expect(agentEnvironment({ env: { PATH: "/opt/agent/bin", ANTHROPIC_API_KEY: "sk-ant-agent" }, inherit_env: [] }, broker)).toStrictEqual({
      HOME: "/home/broker",
      PATH: "/opt/agent/bin",
      USER: "broker",
      ANTHROPIC_API_KEY: "sk-ant-agent",
    });
  });

  it("copies each inherit_env name from the broker", () => {
    expect(agentEnvironment({ env: {}, inherit_env: ["GITHUB_TOKEN", "SHELL"] }, broker)).toStrictEqual({
      HOME: "/home/broker",
      PATH: "/usr/local/bin:/usr/bin",
      USER: "broker",
      GITHUB_TOKEN: "ghp_broker",
      SHELL: "/bin/bash",
    });
  });

  it("lets an explicit [agent].env value win over inherit_env of the same name", () => {
    const env = agentEnvironment({ env: { ANTHROPIC_API_KEY: "sk-ant-agent" }, inherit_env: ["ANTHROPIC_API_KEY"] }, broker);
    expect(env.ANTHROPIC_API_KEY).toBe("sk-ant-agent");
  });

  it("lets an explicit empty [agent].env value win over inherit_env too", () => {
    const env = agentEnvironment({ env: { GITHUB_TOKEN: "" }, inherit_env: ["GITHUB_TOKEN"] }, broker);
    expect(env.GITHUB_TOKEN).toBe("");
  });

  it("does not set broker variables that are missing (no key, no 'undefined')", () => {
    const env = agentEnvironment({ env: {}, inherit_env: ["NOT_SET_ANYWHERE"] }, { PATH: "/bin" });
    expect(env).toStrictEqual({ PATH: "/bin" });
    expect(Object.keys(env)).toEqual(["PATH"]);
  });

  it("keeps an empty broker value (set but empty is not missing)", () => {
    expect(agentEnvironment({ env: {}, inherit_env: ["EMPTY"] }, { HOME: "", EMPTY: "" })).toStrictEqual({ HOME: "", EMPTY: "" });
  });

  it("does not modify the config's env or the broker's env", () => {
    const agent = { env: { A: "1" }, inherit_env: ["GITHUB_TOKEN"] };
    const brokerCopy = { ...broker };
    const env = agentEnvironment(agent, broker);
    env.MUTATED = "yes";
    expect(agent.env).toStrictEqual({ A: "1" });
    expect(broker).toStrictEqual(brokerCopy);
  });
});

describe("sanitizeLogLine", () => {
  it("removes ANSI colour and cursor sequences", () => {
    expect(sanitizeLogLine("\u001b[31merror\u001b[0m: \u001b[1;33mdisk full\u001b[39;49m")).toBe("error: disk full");
    expect(sanitizeLogLine("\u001b[2K\u001b[1Gprogress 50%")).toBe("progress 50%");
  });

  it("removes a lone ESC and other C0 control characters: NUL, bell, backspace, tab, CR, LF", () => {
    expect(sanitizeLogLine("a\u0000b\u0007c\u0008d\te\rf\ng\u001bh")).toBe("abcdefgh");
  });

  it("removes DEL and C1 control characters (U+0080–U+009F, e.g. NEL and the 8-bit CSI)", () => {
    expect(sanitizeLogLine("a\u007fb\u0085c\u009bd\u0080e\u009ff")).toBe("abcdef");
  });

  it("cannot forge a second log line", () => {
    const forged = sanitizeLogLine('ok\r\n{"level":50,"msg":"agent exited"}');
    expect(forged).not.toMatch(/[\r\n]/);
    expect(forged).toBe('ok{"level":50,"msg":"agent exited"}');
  });

  it("keeps printable unicode untouched", () => {
    const text = "好 🎉 café — ü ñ ß ∑ «quote» 👩‍💻 عربى";
    expect(sanitizeLogLine(text)).toBe(text);
  });

  it("leaves a short line as it is, and a line of exactly maxChars untruncated", () => {
    expect(sanitizeLogLine("hello", 5)).toBe("hello");
    expect(sanitizeLogLine("x".repeat(2000))).toBe("x".repeat(2000));
  });

  it("truncates past maxChars with an ellipsis", () => {
    expect(sanitizeLogLine("abcdefgh", 3)).toBe("abc…");
    expect(sanitizeLogLine("x".repeat(2001))).toBe(`${"x".repeat(2000)}…`);
  });

  it("counts maxChars after removing escape sequences", () => {
    expect(sanitizeLogLine("\u001b[31mabc\u001b[0m", 3)).toBe("abc");
  });

  it("does not cut an emoji in half when truncating", () => {
    const cut = sanitizeLogLine("ab🎉cd", 3);
    expect(cut).toBe("ab…");
    // A lone surrogate would not survive a UTF-8 round trip.
    expect(Buffer.from(cut, "utf8").toString("utf8")).toBe(cut);
    expect(sanitizeLogLine("ab🎉cd", 4)).toBe("ab🎉…");
  });
});
