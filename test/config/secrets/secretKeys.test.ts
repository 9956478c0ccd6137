import { describe, expect, it } from "vitest";
import { configSchema } from "../../../src/config/schema.js";
import { keyPaths, keysAt, schemaAt } from "../../../src/config/shape.js";
import { holdsSecret, isUrlKey, secretKeys, urlKeys } from "../../../src/config/secrets/secretKeys.js";

// Keys whose names sound secret but hold none: the silent-reply tokens are words the agent says,
// bus.creds is a path (the file's content is never read into the config), inherit_env lists
// variable names, and a NATS user name identifies rather than authenticates.
const notSecret = ["silent.token", "silent.report_token", "bus.creds", "bus.user", "agent.inherit_env"];

describe("secretKeys", () => {
  it("names every secret-sounding key of the schema, or says why it is not one", () => {
    const sounding = keyPaths(configSchema).filter((path) => /(^|_)(token|password|pass|secret|creds?|key|user|env)$/i.test(path.split(".").at(-1) ?? ""));
    for (const path of sounding) {
      const listed = secretKeys.includes(path) || secretKeys.includes(`${path}.*`) || notSecret.includes(path);
      expect(listed, `${path} is neither in secretKeys nor known not to be secret`).toBe(true);
    }
    // An array of tables (`[[webhooks.endpoints]]`): its items' keys, `*` standing for the index.
    const itemKeys = keysAt(configSchema, ["webhooks", "endpoints", 0]).map((key) => `webhooks.endpoints.*.${key}`);
    for (const path of itemKeys.filter((path) => /(^|_)(token|password|pass|secret|creds?|key|user|env)$/i.test(path.split(".").at(-1) ?? ""))) {
      expect(secretKeys.includes(path), `${path} is neither in secretKeys nor known not to be secret`).toBe(true);
    }
    const inSchema = (key: string) => (key.includes(".*.") ? schemaAt(configSchema, key.split(".").map((step) => (step === "*" ? 0 : step))) !== undefined : keyPaths(configSchema).includes(key.replace(/\.\*$/, "")));
    expect(secretKeys.filter((key) => !inSchema(key))).toEqual([]);
    expect(urlKeys.every((key) => keyPaths(configSchema).includes(key))).toBe(true);
  });

  it("covers a secret key, what lies inside it and the tables on the way to it", () => {
    for (const path of [["gateway", "token"], ["bus", "password"], ["agent", "env", "API_KEY"], ["agent", "env"], ["gateway"], ["gateway", "token", 0]]) {
      expect(holdsSecret(path), path.join(".")).toBe(true);
    }
    for (const path of [[], ["gateway", "url"], ["bus", "user"], ["bus", "creds"], ["silent", "token"], ["agent", "command"], ["delivery"]]) {
      expect(holdsSecret(path), path.join(".")).toBe(false);
    }
    expect(isUrlKey(["bus", "url"])).toBe(true);
    expect(isUrlKey(["gateway", "token"])).toBe(false);
  });
});
