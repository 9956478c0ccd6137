import { describe, expect, it } from "vitest";
import { expandEnvRefs } from "../../src/config/expandEnv.js";
import { resolveConfig } from "../../src/config/index.js";

describe("[agent].env ${VAR} expansion", () => {
  const env = { API_KEY: "sk-1", REGION: "eu", HOME: "/h" };
  const agentEnv = (values: Record<string, string>) => resolveConfig({ agent: { env: values } }, { env }).agent.env;

  it("expands a set variable", () => {
    expect(agentEnv({ KEY: "${API_KEY}" })).toEqual({ KEY: "sk-1" });
  });

  it("expands an unset variable to the empty string", () => {
    expect(agentEnv({ KEY: "${NOPE}" })).toEqual({ KEY: "" });
  });

  it("expands several references in one value and leaves other dollars alone", () => {
    expect(agentEnv({ URL: "https://${REGION}.api/${API_KEY}?x=$REGION&y=${}&z=${1X}" })).toEqual({
      URL: "https://eu.api/sk-1?x=$REGION&y=${}&z=${1X}",
    });
  });

  it("does not expand in other sections", () => {
    const config = resolveConfig(
      { agent: { args: ["${API_KEY}"] }, delivery: { parse_error_text: "${API_KEY}" }, pool: { default_config_options: { model: "${API_KEY}" } } },
      { env },
    );
    expect(config.agent.args).toEqual(["${API_KEY}"]);
    expect(config.delivery.parse_error_text).toBe("${API_KEY}");
    expect(config.pool.default_config_options.model).toBe("${API_KEY}");
  });

  it("is a pure function of value and env", () => {
    expect(expandEnvRefs("${A}${B}${A}", { A: "1" })).toBe("11");
  });
});

describe("[agent] command defaults", () => {
  const agent = (input: object, env: NodeJS.ProcessEnv) => resolveConfig({ agent: input }, { env }).agent;

  it("takes command and args from OPENAB_AGENT_COMMAND", () => {
    expect(agent({}, { OPENAB_AGENT_COMMAND: "  kiro-cli  acp --trust-all-tools " })).toMatchObject({
      command: "kiro-cli",
      args: ["acp", "--trust-all-tools"],
    });
  });

  it("falls back to openab-agent with no args", () => {
    expect(agent({}, {})).toMatchObject({ command: "openab-agent", args: [] });
    expect(agent({}, { OPENAB_AGENT_COMMAND: "   " })).toMatchObject({ command: "openab-agent", args: [] });
  });

  it("gives an explicit command no args from the environment", () => {
    expect(agent({ command: "claude-agent-acp" }, { OPENAB_AGENT_COMMAND: "kiro-cli acp" })).toMatchObject({
      command: "claude-agent-acp",
      args: [],
    });
  });

  it("keeps explicit args with the environment's command", () => {
    expect(agent({ args: ["--x"] }, { OPENAB_AGENT_COMMAND: "kiro-cli acp" })).toMatchObject({ command: "kiro-cli", args: ["--x"] });
  });

  it("takes working_dir from HOME unless set", () => {
    expect(agent({}, { HOME: "/home/a" }).working_dir).toBe("/home/a");
    expect(agent({ working_dir: "/srv" }, { HOME: "/home/a" }).working_dir).toBe("/srv");
  });
});
