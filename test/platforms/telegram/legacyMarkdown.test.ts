import { describe, expect, it } from "vitest";
import { readsAsLegacyMarkdown } from "../../../src/platforms/telegram/legacyMarkdown.js";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import { TelegramPort } from "../../../src/platforms/telegram/index.js";
import { someChats, useFakeBotApi } from "../../fakes/telegram/fakeBotApiFixture.js";
import { parseLegacyMarkdown } from "../../fakes/telegram/legacyMarkdown.js";
import { captureLogs } from "../../helpers/logCapture.js";
import { telegramConfig } from "./telegramTestConfig.js";

// Which texts go out with parse_mode "Markdown" and which as plain text at once, checked against
// the fake Bot API's parser (Telegram's rules, learnt from its server's source).

const parses = (text: string): boolean => {
  try {
    parseLegacyMarkdown(text);
    return true;
  } catch {
    return false;
  }
};

const vectors = [
  "plain text",
  "*bold* and _italic_ and `code`",
  "```ts\nconst a_b = 1;\n```",
  "[a link](https://example.com)",
  "snake_case identifier",
  "Ask the admin to add it to allowed_users.",
  "a lone * star",
  "escaped \\_ and \\* are fine",
  "`unclosed code",
  "```unclosed pre",
  "[unclosed link text",
  "_italic with * inside_",
  "a_b_c",
  "``",
  "`` ` ``",
  "trailing backslash \\",
  "emoji 😀 _ok_",
];

describe("readsAsLegacyMarkdown", () => {
  it.each(vectors)("agrees with Telegram's parser: %j", (text) => {
    expect(readsAsLegacyMarkdown(text)).toBe(parses(text));
  });

  it("is linear: 200,000 unclosed markers are read in one pass", () => {
    const text = "_".repeat(1) + "x".repeat(200_000);
    expect(readsAsLegacyMarkdown(text)).toBe(false);
    expect(readsAsLegacyMarkdown("a_b ".repeat(50_000))).toBe(true);
  });
});

describe("a reply that is no legacy Markdown", () => {
  const fake = useFakeBotApi();

  it("goes out as plain text at once: no call Telegram refuses first (the stranger's answer names allowed_users)", async () => {
    const { dm } = someChats(fake.api);
    const { logger } = captureLogs();
    const port = new TelegramPort({ config: telegramConfig(fake.api), logger });
    try {
      const text = "⚠️ You are not on this bot's trusted list.\nYour ID: 1001\nAsk the admin to add it to allowed_users.";
      await port.send(outbound(dm.id, text));
      expect(fake.api.callsOf("sendMessage").map((call) => [call.params.parse_mode, call.status])).toEqual([[undefined, 200]]);
      expect(fake.api.botTexts(dm.id)).toEqual([text]);
    } finally {
      await port.close();
    }
  });
});

function outbound(chatId: number, text: string): OutboundMessage {
  return { reply_to: "1", platform: "telegram", channel: { id: String(chatId) }, content: { type: "text", text } };
}
