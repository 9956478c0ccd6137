import { describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "../../../src/platforms/slack/markdownToMrkdwn.js";
import { expectLinear } from "../../helpers/linearTime.js";

describe("markdownToMrkdwn (§3.6, §6.4)", () => {
  it("bold, then italic, without bold turning italic", () => {
    expect(markdownToMrkdwn("**bold** and *it*")).toBe("*bold* and _it_");
  });

  it("links", () => {
    expect(markdownToMrkdwn("see [docs](https://x.y/z)")).toBe("see <https://x.y/z|docs>");
  });

  it("headings", () => {
    expect(markdownToMrkdwn("## Title")).toBe("*Title*");
    expect(markdownToMrkdwn("# **Bold** title")).toBe("**Bold* title*");
    expect(markdownToMrkdwn("####### seven")).toBe("####### seven");
    expect(markdownToMrkdwn("#hashtag")).toBe("#hashtag");
  });

  it("a fence opener loses its language; the block is kept as written", () => {
    expect(markdownToMrkdwn("```rust\nfn main() {}\n```")).toBe("```\nfn main() {}\n```");
    expect(markdownToMrkdwn("```\ndef f(*args, **kwargs): pass\n```\n**after**")).toBe("```\ndef f(*args, **kwargs): pass\n```\n*after*");
  });

  it("a lone pair of stars around spaces is italic, as upstream", () => {
    expect(markdownToMrkdwn("a * b * c")).toBe("a _ b _ c");
  });

  it("leaves inline code alone (a difference from upstream, on purpose)", () => {
    expect(markdownToMrkdwn("call `f(**kw)` now, **really**")).toBe("call `f(**kw)` now, *really*");
  });

  it("keeps rules within a line, and leaves unmatched marks", () => {
    expect(markdownToMrkdwn("**open\nclose**")).toBe("**open\nclose**");
    expect(markdownToMrkdwn("[a](b")).toBe("[a](b");
    expect(markdownToMrkdwn("5 * 3")).toBe("5 * 3");
    expect(markdownToMrkdwn("<@U1ALICE> & <https://x|x>")).toBe("<@U1ALICE> & <https://x|x>");
  });

  it("is linear on inputs that make backtracking patterns quadratic", () => {
    const hostile: [string, (count: number) => string, number][] = [
      ["brackets", (count) => "[".repeat(count), 100_000],
      ["stars", (count) => `${"*".repeat(count)}x`, 100_000],
      ["unclosed bold", (count) => "**a".repeat(count), 50_000],
      ["unclosed links", (count) => "[a](".repeat(count), 50_000],
      ["an odd run of backticks", (count) => "`".repeat(count + 1), 100_000],
    ];
    for (const [name, text, count] of hostile) expectLinear(text, markdownToMrkdwn, count, name);
  });
});
