import { describe, expect, it } from "vitest";
import { hasUnresolvedModelVariable, resolveResponsePrefix, shortModelName, withResponsePrefix } from "../../../operators/delivery/responsePrefix.js";

describe("shortModelName (peers.md §8 vectors, executed)", () => {
  it.each([
    ["openai/gpt-5.4", "gpt-5.4"],
    ["claude-opus-4-6-20260205", "claude-opus-4-6"],
    ["gpt-5.4-latest", "gpt-5.4"],
    ["openrouter/anthropic/claude-opus-4-6-20260205", "claude-opus-4-6"],
    ["gpt-5.4", "gpt-5.4"],
    ["", ""],
  ])("%j → %j", (model, expected) => {
    expect(shortModelName(model)).toBe(expected);
  });

  it("strips the date before -latest, once each, as OpenClaw", () => {
    expect(shortModelName("x-latest-20260101")).toBe("x");
    expect(shortModelName("x-20260101-latest")).toBe("x-20260101");
    expect(shortModelName("x-2026010")).toBe("x-2026010");
    expect(shortModelName("x-202601011")).toBe("x-202601011");
  });

  it("is linear on a 1 MB id", () => {
    const model = `${"-1234567".repeat(131_072)}x`;
    expect(shortModelName(model)).toBe(model);
  });
});

describe("resolveResponsePrefix", () => {
  it("resolves the peers.md §8 template (executed)", () => {
    const vars = { model: "openai/gpt-5.4", thinkingLevel: "high", identityName: "Clawd" };
    expect(resolveResponsePrefix("[{model} | think:{thinkingLevel} | {identity.name} | {unknown}]", vars)).toBe("[gpt-5.4 | think:high | Clawd | {unknown}]");
  });

  it("fills every variable and its alias", () => {
    const vars = { model: "claude-opus-4-6-20260205", provider: "anthropic", thinkingLevel: "low", identityName: "Clawd" };
    expect(resolveResponsePrefix("{model} {modelFull} {provider} {thinkingLevel} {think} {identity.name} {identityName}", vars)).toBe(
      "claude-opus-4-6 anthropic/claude-opus-4-6-20260205 anthropic low low Clawd Clawd",
    );
  });

  it("{modelFull} names the provider once", () => {
    expect(resolveResponsePrefix("{modelFull}", { model: "openai/gpt-5.4", provider: "openai" })).toBe("openai/gpt-5.4");
    expect(resolveResponsePrefix("{modelFull}", { model: "anthropic/claude-opus-4-6", provider: "openrouter" })).toBe("openrouter/anthropic/claude-opus-4-6");
    expect(resolveResponsePrefix("{modelFull}", { model: "openai/gpt-5.4" })).toBe("openai/gpt-5.4");
  });

  it("matches variable names case-insensitively, as OpenClaw, and leaves a missing one as written", () => {
    expect(resolveResponsePrefix("[{MODEL}|{Think}|{IDENTITY.NAME}]", { model: "openai/gpt-5.4", thinkingLevel: "high", identityName: "Clawd" })).toBe("[gpt-5.4|high|Clawd]");
    expect(resolveResponsePrefix("[{Model} {ThinkingLevel} {Identity.Name} {Provider}]", {})).toBe("[{Model} {ThinkingLevel} {Identity.Name} {Provider}]");
  });

  it("leaves text that is not a variable alone", () => {
    expect(resolveResponsePrefix("{} {1model} {model name} {{model}} {model", { model: "gpt-5.4" })).toBe("{} {1model} {model name} {gpt-5.4} {model");
    expect(resolveResponsePrefix("[bot]", { model: "gpt-5.4" })).toBe("[bot]");
    expect(resolveResponsePrefix("", { model: "gpt-5.4" })).toBe("");
  });

  it('"auto" is the identity name in brackets, or nothing without one', () => {
    expect(resolveResponsePrefix("auto", { identityName: "Clawd" })).toBe("[Clawd]");
    expect(resolveResponsePrefix("auto", { identityName: "  Clawd " })).toBe("[Clawd]");
    expect(resolveResponsePrefix("auto", {})).toBe("");
    expect(resolveResponsePrefix("auto", { identityName: "   " })).toBe("");
    expect(resolveResponsePrefix("Auto", { identityName: "Clawd" })).toBe("Auto");
  });

  it("a blank identity name is no name", () => {
    expect(resolveResponsePrefix("[{identity.name}]", { identityName: "" })).toBe("[{identity.name}]");
  });

  it("is linear on a 1 MB template of unclosed variables", () => {
    const template = "{model".repeat(174_763);
    expect(resolveResponsePrefix(template, { model: "gpt-5.4" })).toBe(template);
  });
});

describe("hasUnresolvedModelVariable", () => {
  it.each(["[{model}]", "{modelFull}", "{provider}", "think:{thinkingLevel}", "{think}", "{MODEL}", "[Clawd | {model}]"])("%j holds one", (prefix) => {
    expect(hasUnresolvedModelVariable(prefix)).toBe(true);
  });

  it.each(["", "[Clawd]", "[gpt-5.4 | think:high | Clawd | {unknown}]", "{identity.name}", "{identityName}", "{models}", "{ model }"])("%j holds none", (prefix) => {
    expect(hasUnresolvedModelVariable(prefix)).toBe(false);
  });

  it("is false once the template resolved", () => {
    expect(hasUnresolvedModelVariable(resolveResponsePrefix("[{model}]", { model: "openai/gpt-5.4" }))).toBe(false);
    expect(hasUnresolvedModelVariable(resolveResponsePrefix("[{model}]", {}))).toBe(true);
  });
});

describe("withResponsePrefix", () => {
  it("puts the prefix and a space before the text", () => {
    expect(withResponsePrefix("[bot]", "hello")).toBe("[bot] hello");
    expect(withResponsePrefix("[bot]", "All good.")).toBe("[bot] All good.");
  });

  it("leaves a text that already starts with the prefix", () => {
    expect(withResponsePrefix("[bot]", "[bot] hello")).toBe("[bot] hello");
    expect(withResponsePrefix("[bot]", "[bot]hello")).toBe("[bot]hello");
    expect(withResponsePrefix("[bot]", " [bot] hello")).toBe("[bot]  [bot] hello");
  });

  it("leaves HEARTBEAT_OK, compared trimmed as OpenClaw", () => {
    expect(withResponsePrefix("[bot]", "HEARTBEAT_OK")).toBe("HEARTBEAT_OK");
    expect(withResponsePrefix("[bot]", " HEARTBEAT_OK\n")).toBe(" HEARTBEAT_OK\n");
    expect(withResponsePrefix("[bot]", "HEARTBEAT_OK!")).toBe("[bot] HEARTBEAT_OK!");
  });

  it("no prefix, or no text, changes nothing", () => {
    expect(withResponsePrefix("", "hello")).toBe("hello");
    expect(withResponsePrefix("[bot]", "")).toBe("");
  });

  it("takes a 1 MB text", () => {
    const text = "x".repeat(1 << 20);
    expect(withResponsePrefix("[bot]", text)).toHaveLength((1 << 20) + 6);
  });
});
