import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfigFile, parseConfigText } from "../../src/config/index.js";
import { rejection } from "./problemsOf.js";

describe("parseConfigText", () => {
  it("turns a TOML syntax error into one problem that says where, without a stack or code excerpt", () => {
    const error = rejection(() => parseConfigText(`[delivery]\nmode = \n`, { source: "turnstream.toml" }));
    expect(error.problems).toEqual([{ path: "", message: "invalid TOML at line 2, column 8: invalid value" }]);
    expect(error.message).not.toContain("\n");
    expect(error.message).not.toMatch(/\bat \S+:\d+/);
    expect(error.source).toBe("turnstream.toml");
    // smol-toml's own error quotes the offending line, which may hold a secret: it is not kept.
    expect(error.cause).toBeUndefined();
  });

  it("reports a redefined table as a syntax error too", () => {
    const error = rejection(() => parseConfigText(`[pool]\n[pool]\n`));
    expect(error.problems).toHaveLength(1);
    expect(error.message).toMatch(/^invalid TOML at line 2, column \d+: /);
  });

  it("records the source on validation errors", () => {
    const error = rejection(() => parseConfigText(`[log]\nlevel = "loud"\n`, { source: "a.toml" }));
    expect(error.source).toBe("a.toml");
    expect(error.lines()).toEqual([`log.level: "loud" is not allowed; expected one of trace, debug, info, warn, error, fatal, silent`]);
  });
});

describe("loadConfigFile", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "turnstream-config-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads, parses and resolves a file", async () => {
    const path = join(dir, "good.toml");
    await writeFile(path, `[delivery]\nmode = "bubbles"\n[agent]\ncommand = "x"\n`);
    const config = await loadConfigFile(path, { env: { HOME: "/h" } });
    expect(config.delivery.mode).toBe("structured");
    expect(config.agent.working_dir).toBe("/h");
  });

  it("names the file in a one-line error when it is missing, keeping the fs error as cause", async () => {
    const path = join(dir, "missing.toml");
    const error = await loadConfigFile(path).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.message).toBe(`cannot read config file ${JSON.stringify(path)}: no such file`);
    // The message names the file already; no source prefix, so the CLI prints it once.
    expect(configError.source).toBeUndefined();
    expect((configError.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  it("reports a directory as unreadable", async () => {
    await expect(loadConfigFile(dir)).rejects.toThrow(`cannot read config file ${JSON.stringify(dir)}: is a directory`);
  });

  it("attributes content problems to the file", async () => {
    const path = join(dir, "bad.toml");
    await writeFile(path, `[gatway]\n`);
    const error = await loadConfigFile(path).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).source).toBe(path);
    expect((error as ConfigError).problems[0]?.path).toBe("gatway");
  });
});

describe("ConfigError", () => {
  it("prints one line per problem, path first unless empty", () => {
    const error = new ConfigError([
      { path: "a.b", message: "bad" },
      { path: "", message: "whole file bad" },
    ]);
    expect(error.name).toBe("ConfigError");
    expect(error.message).toBe("a.b: bad\nwhole file bad");
    expect(error.lines()).toEqual(["a.b: bad", "whole file bad"]);
    expect(error.source).toBeUndefined();
    expect("cause" in error).toBe(false);
  });
});
