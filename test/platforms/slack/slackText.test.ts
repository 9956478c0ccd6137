import { describe, expect, it } from "vitest";
import { unescapeSlackText } from "../../../src/platforms/slack/slackText.js";

describe("unescapeSlackText", () => {
  it("reads Slack's three entities back, in one pass, and leaves its markup", () => {
    expect(unescapeSlackText("a &lt; b &amp;&amp; c &gt; d")).toBe("a < b && c > d");
    expect(unescapeSlackText("&amp;lt; stays")).toBe("&lt; stays");
    expect(unescapeSlackText("<@U2ALICE> see <https://x.y|docs> &quot;")).toBe("<@U2ALICE> see <https://x.y|docs> &quot;");
  });
});
