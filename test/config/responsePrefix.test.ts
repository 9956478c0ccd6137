import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/index.js";
import { problemsOf } from "./problemsOf.js";

const GATEWAY = { url: "ws://127.0.0.1:1/ws" };

// `[delivery] response_prefix` is put before each message's first line and counts in the block
// size: a prefix that cannot do that and leave valid Markdown with room for text is refused at
// start-up with one line, not sent broken.
describe("[delivery] response_prefix: only what can be honoured", () => {
  it.each([
    [{ delivery: { response_prefix: "[bot]\n" } }, "holds a line break; it is put before each message's first line: keep it to one line"],
    [{ delivery: { response_prefix: "```" } }, "starts with a code fence (``` or ~~~), which would open a code block in every message: use other text"],
    [{ delivery: { response_prefix: "~~~ {identity.name}" } }, "starts with a code fence (``` or ~~~), which would open a code block in every message: use other text"],
    [
      { delivery: { response_prefix: "[a long signature]", blocks: { enabled: true, min_chars: 10, max_chars: 19 } } },
      "takes 19 chars of each message with its separator, and delivery.blocks.max_chars (19) counts it: no text would fit; shorten the prefix or raise max_chars",
    ],
  ])("refuses %j with one line", (input, message) => {
    expect(problemsOf(input)).toEqual([{ path: "delivery.response_prefix", message }]);
  });

  it("resolves {identity.name} from bot_username before judging", () => {
    expect(problemsOf({ gateway: { ...GATEWAY, bot_username: "a\nb" }, delivery: { response_prefix: "[{identity.name}]" } })).toEqual([
      { path: "delivery.response_prefix", message: "holds a line break; it is put before each message's first line: keep it to one line" },
    ]);
  });

  it("takes a prefix that leaves room: one char of text is enough, and blocks off need none", () => {
    expect(resolveConfig({ delivery: { response_prefix: "🤖", blocks: { enabled: true, min_chars: 1, max_chars: 3 } } }).delivery.response_prefix).toBe("🤖");
    expect(resolveConfig({ delivery: { response_prefix: "x".repeat(2000) } }).delivery.response_prefix).toHaveLength(2000);
    expect(resolveConfig({ delivery: { response_prefix: "`bot`" } }).delivery.response_prefix).toBe("`bot`");
  });
});
