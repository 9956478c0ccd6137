import { describe, expect, it } from "vitest";
import { shownText } from "./shownText.js";

const names = { user: (id: string) => (id === "111" ? "Ally" : undefined), role: (id: string) => (id === "222" ? "helpers" : undefined), channel: (id: string) => (id === "333" ? "general" : undefined) };

/** The fake's model of what Discord's client shows: cases whose rendering Discord users know. */
describe("shownText: a message's content as Discord renders it", () => {
  it.each([
    ["**bold** *it* _it_ __under__ ~~strike~~ ||spoiler||", "bold it it under strike spoiler"],
    ["***both*** and *__mixed__*", "both and mixed"],
    ["`code *not bold*` and ``two `ticks` ``", "code *not bold* and two `ticks` "],
    ["```js\nlet a = *b*;\n```", "let a = *b*;"],
    ["[a](http://x) and [site](<https://example.com> \"title\")", "a and site"],
    ["see http://x/a_b_c and <https://y/*z*>", "see http://x/a_b_c and https://y/*z*"],
    ["snake_case_name stays", "snake_case_name stays"],
    ["2 * 3 * 4", "2 * 3 * 4"],
    // The shrug that loses its arm: `\_` is an escape.
    ["¯\\_(ツ)_/¯", "¯_(ツ)_/¯"],
    ["\\*not\\* \\_it\\_ \\`x\\` \\\\ \\a", "*not* _it_ `x` \\ \\a"],
    ["<@111> <@!111> <@&222> <#333> <@999> @everyone", "@Ally @Ally @helpers #general @unknown-user @everyone"],
    ["<:blob:444> </deploy:555> <t:0:R>", ":blob: /deploy 1970-01-01T00:00:00.000Z"],
    ["\\<@111> \\<#333>", "<@111> <#333>"],
  ])("%j shows %j", (content, shown) => {
    expect(shownText(content, names)).toBe(shown);
  });

  it("reads block marks only where a line starts", () => {
    expect(shownText("# Title\n## Sub\n-# small\n- one\n* two\n+ three\n> quoted\nplain # - > 1. text")).toBe("Title\nSub\nsmall\n• one\n• two\n• three\nquoted\nplain # - > 1. text");
    expect(shownText(">>> all\n# of\nthis")).toBe("all\nof\nthis");
    expect(shownText("#no space\n>no space\n-no space")).toBe("#no space\n>no space\n-no space");
  });

  it("numbers consecutive items on from the first's number, as Discord does", () => {
    expect(shownText("1. a\n1. b\n1. c\nafter\n5. d\n5. e")).toBe("1. a\n2. b\n3. c\nafter\n5. d\n6. e");
    expect(shownText("1\\. a\n1\\. b")).toBe("1. a\n1. b");
  });

  it("an escape inside a bare URL is part of the link, so its backslash shows", () => {
    expect(shownText("http://x/a\\_b")).toBe("http://x/a\\_b");
    expect(shownText("http\\://x/a\\_b")).toBe("http://x/a_b");
  });
});
