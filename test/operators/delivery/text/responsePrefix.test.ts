import { describe, expect, it } from "vitest";
import { hasUnresolvedModelVariable, prefixProblem, prefixRoom, resolveResponsePrefix, shortModelName, startsMarkdownBlock, withResponsePrefix } from "../../../../operators/delivery/text/responsePrefix.js";

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

  it("puts the prefix on a line of its own before a code fence, so the fence still opens (and its closer closes it)", () => {
    expect(withResponsePrefix("🤖", "```ts\nlet a = 1;\n```")).toBe("🤖\n```ts\nlet a = 1;\n```");
    expect(withResponsePrefix("🤖", "~~~\ncode\n~~~")).toBe("🤖\n~~~\ncode\n~~~");
    expect(withResponsePrefix("🤖", "   ```\ncode\n```")).toBe("🤖\n   ```\ncode\n```");
    // Inline code is no fence.
    expect(withResponsePrefix("🤖", "`code` here")).toBe("🤖 `code` here");
    expect(withResponsePrefix("🤖", "``x`` here")).toBe("🤖 ``x`` here");
  });

  it("and before the other Markdown blocks a prefix on their line would unmake", () => {
    for (const text of ["# Title", "## Part", "#", "- item", "* item", "+ item", "1. step", "12) step", "> quote", "| a | b |", "    indented code", "\tindented code", "-\nitem"]) {
      expect(withResponsePrefix("[bot]", text), text).toBe(`[bot]\n${text}`);
    }
    for (const text of ["#hashtag", "-1 degrees", "*bold*", "**bold**", "---", "1.5 kg", "2024 was", "hello", "    ", "\u00a0# not"]) {
      expect(withResponsePrefix("[bot]", text), text).toBe(`[bot] ${text}`);
    }
  });

  it("reads only the text's start: a 1 MB run of spaces", () => {
    expect(startsMarkdownBlock(" ".repeat(1 << 20))).toBe(false);
    expect(startsMarkdownBlock(`    x${" ".repeat(1 << 20)}`)).toBe(true);
    expect(startsMarkdownBlock(`${"1".repeat(1 << 20)}. x`)).toBe(false);
  });
});

describe("prefixRoom", () => {
  it("counts the prefix in chars, as platform limits do, with its separator", () => {
    expect(prefixRoom("")).toBe(0);
    expect(prefixRoom("[bot]")).toBe(6);
    expect(prefixRoom("🤖")).toBe(2);
    expect(prefixRoom("\u{1F468}\u200D\u{1F469}")).toBe(4);
  });
});

describe("prefixProblem", () => {
  it("refuses a prefix with a line break, or one that is a code fence itself", () => {
    expect(prefixProblem("[bot]")).toBeUndefined();
    expect(prefixProblem("🤖 `bot`")).toBeUndefined();
    expect(prefixProblem("line\nbreak")).toBe("line_break");
    expect(prefixProblem("cr\r")).toBe("line_break");
    expect(prefixProblem("```")).toBe("fence");
    expect(prefixProblem("  ~~~ bot")).toBe("fence");
  });
});
