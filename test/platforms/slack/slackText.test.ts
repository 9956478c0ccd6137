import { describe, expect, it } from "vitest";
import { escapeSlackText, unescapeSlackText } from "../../../src/platforms/slack/slackText.js";

describe("unescapeSlackText", () => {
  it("reads Slack's three entities back, in one pass, and leaves its markup", () => {
    expect(unescapeSlackText("a &lt; b &amp;&amp; c &gt; d")).toBe("a < b && c > d");
    expect(unescapeSlackText("&amp;lt; stays")).toBe("&lt; stays");
    expect(unescapeSlackText("<@U2ALICE> see <https://x.y|docs> &quot;")).toBe("<@U2ALICE> see <https://x.y|docs> &quot;");
  });
});

describe("escapeSlackText", () => {
  it("writes &, < and > as Slack's entities and nothing else, so markup shows as typed; unescapeSlackText reads it back", () => {
    const typed = "<@U1> <!channel> <https://x|a> a && b > c &lt; *b* _i_ `c` \"q\" 'a' 😀";
    expect(escapeSlackText(typed)).toBe("&lt;@U1&gt; &lt;!channel&gt; &lt;https://x|a&gt; a &amp;&amp; b &gt; c &amp;lt; *b* _i_ `c` \"q\" 'a' 😀");
    expect(unescapeSlackText(escapeSlackText(typed))).toBe(typed);
  });
});
