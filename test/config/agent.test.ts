import { describe, expect, it } from "vitest";
import { expandEnvRefs } from "../../src/config/expandEnv.js";
import { ConfigError, resolveConfig } from "../../src/config/index.js";

describe("${VAR} expansion in every string value (as OpenAB expands its whole file)", () => {
  const env = { API_KEY: "sk-1", REGION: "eu", HOME: "/h", EMPTY: "", GATEWAY_WS_TOKEN: "gw-secret" };
  const agentEnv = (values: Record<string, string>) => resolveConfig({ agent: { env: values } }, { env }).agent.env;
  const problemLines = (input: unknown): string[] => {
    try {
      resolveConfig(input, { env });
    } catch (err) {
      if (err instanceof ConfigError) return err.lines();
      throw err;
    }
    return [];
  };

  it("expands a set variable, an empty one to the empty string", () => {
    expect(agentEnv({ KEY: "${API_KEY}", NONE: "${EMPTY}" })).toEqual({ KEY: "sk-1", NONE: "" });
  });

  it("expands several references in one value and leaves other dollars alone", () => {
    expect(agentEnv({ URL: "https://${REGION}.api/${API_KEY}?x=$REGION&y=${}&z=${1X}" })).toEqual({
      URL: "https://eu.api/sk-1?x=$REGION&y=${}&z=${1X}",
    });
  });

  it("expands in every section, in arrays and tables, never in keys (OpenAB's Helm chart: token = \"${GATEWAY_WS_TOKEN}\")", () => {
    const config = resolveConfig(
      {
        gateway: { url: "ws://gw:8080/ws", token: "${GATEWAY_WS_TOKEN}" },
        agent: { args: ["--region", "${REGION}"] },
        delivery: { parse_error_text: "${API_KEY}" },
        pool: { default_config_options: { model: "${REGION}-large" } },
      },
      { env },
    );
    expect(config.gateway?.token).toBe("gw-secret");
    expect(config.agent.args).toEqual(["--region", "eu"]);
    expect(config.delivery.parse_error_text).toBe("sk-1");
    expect(config.pool.default_config_options).toEqual({ model: "eu-large" });
  });

  it("refuses an unset variable, naming the key and the variable (every one, in one pass)", () => {
    expect(problemLines({ gateway: { url: "ws://gw/ws", token: "${GATEWAY_TOKEN_TYPO}" }, agent: { args: ["${NOPE}"], env: { K: "${ALSO_NOPE}" } } })).toEqual([
      "gateway.token: ${GATEWAY_TOKEN_TYPO} is not set in the environment",
      "agent.args[0]: ${NOPE} is not set in the environment",
      "agent.env.K: ${ALSO_NOPE} is not set in the environment",
    ]);
  });

  it("expandEnvRefs is a pure function of value and env", () => {
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
