import { describe, expect, it } from "vitest";
import { parseOutputDirectives } from "../../../../operators/delivery/text/outputDirectives.js";

// `openab-protocol.md` §10.2: upstream `directive_tests` and `structured_delivery_tests`, by name.
const vectors: ReadonlyArray<readonly [string, string, { replyTo?: string; delivery?: string; body: string }]> = [
  ["parse_reply_to_directive", "[[reply_to:1502606076451885136]]\nHello world", { replyTo: "1502606076451885136", body: "Hello world" }],
  ["parse_no_directives", "Just plain content\nwith multiple lines", { body: "Just plain content\nwith multiple lines" }],
  ["parse_multiple_directives", "[[reply_to:123456]]\n[[unknown_key:value]]\nContent here", { replyTo: "123456", body: "Content here" }],
  ["parse_invalid_reply_to_rejects_whitespace", "[[reply_to:has spaces]]\nContent", { body: "Content" }],
  ["parse_slack_ts_format_accepted", "[[reply_to:1234567890.123456]]\nContent", { replyTo: "1234567890.123456", body: "Content" }],
  ["parse_empty_reply_to", "[[reply_to:]]\nContent", { body: "Content" }],
  ["parse_crlf_line_endings", "[[reply_to:999]]\r\nContent with CRLF", { replyTo: "999", body: "Content with CRLF" }],
  ["parse_directive_only_no_content", "[[reply_to:123]]", { replyTo: "123", body: "" }],
  [
    "parse_non_directive_line_stops_parsing",
    "Normal first line\n[[reply_to:123]]\nMore content",
    { body: "Normal first line\n[[reply_to:123]]\nMore content" },
  ],
  ["parse_duplicate_reply_to_last_wins", "[[reply_to:111]]\n[[reply_to:222]]\nContent", { replyTo: "222", body: "Content" }],
  ["parse_crlf_multiple_directives", "[[reply_to:456]]\r\n[[unknown:x]]\r\nContent after CRLF", { replyTo: "456", body: "Content after CRLF" }],
  ["parse_bracket_without_colon_preserved", "[[Summary]]\nThis is body text", { body: "[[Summary]]\nThis is body text" }],
  [
    "parse_reply_to_with_inline_content",
    "[[reply_to:1502724086474870926]]  @BOT I'm on standby",
    { replyTo: "1502724086474870926", body: "@BOT I'm on standby" },
  ],
  [
    "parse_reply_to_inline_with_more_lines",
    "[[reply_to:123]]  First line\nSecond line\nThird line",
    { replyTo: "123", body: "First line\nSecond line\nThird line" },
  ],
  ["parse_reply_to_no_space_before_content", "[[reply_to:1502724086474870926]]收到", { replyTo: "1502724086474870926", body: "收到" }],
  [
    "parse_reply_to_inline_with_mention",
    "[[reply_to:1502724086474870926]]  <@1490365068863606784> 我 standby",
    { replyTo: "1502724086474870926", body: "<@1490365068863606784> 我 standby" },
  ],
  ["parse_reply_to_inline_only_spaces", "[[reply_to:123]]   ", { replyTo: "123", body: "" }],
  ["parse_reply_to_with_brackets_in_content", "[[reply_to:456]]  看看 [[這個]] 怎麼樣", { replyTo: "456", body: "看看 [[這個]] 怎麼樣" }],
  ["reply_to and delivery header", "[[reply_to:123]]\n[[delivery:openab.turn.v1]]\n{}", { replyTo: "123", delivery: "openab.turn.v1", body: "{}" }],
  ["delivery with spaces is rejected", "[[delivery:has spaces]]\nx", { body: "x" }],
  ["repeated delivery: last wins", "[[delivery:a.v1]]\n[[delivery:b.v2]]\nx", { delivery: "b.v2", body: "x" }],
];

describe("parseOutputDirectives", () => {
  it.each(vectors)("%s", (_name, input, expected) => {
    expect(parseOutputDirectives(input)).toStrictEqual(expected);
  });

  it("keeps the content after the header byte for byte, blank lines included", () => {
    expect(parseOutputDirectives("[[reply_to:1]]\n\n  indented\n")).toStrictEqual({ replyTo: "1", body: "\n  indented\n" });
  });

  it("joins inline content to the following lines with a newline, and only when they exist", () => {
    expect(parseOutputDirectives("[[reply_to:1]] hi\n")).toStrictEqual({ replyTo: "1", body: "hi" });
    expect(parseOutputDirectives("[[reply_to:1]] hi\n\nnext")).toStrictEqual({ replyTo: "1", body: "hi\n\nnext" });
    expect(parseOutputDirectives("[[reply_to:1]] hi\r\nnext")).toStrictEqual({ replyTo: "1", body: "hi\nnext" });
  });

  it("matches directive lines after trimming, and trims keys and values", () => {
    expect(parseOutputDirectives("  [[ reply_to : 42 ]]\t\nok")).toStrictEqual({ replyTo: "42", body: "ok" });
  });

  it("treats a line without a closing ]] as content", () => {
    expect(parseOutputDirectives("[[reply_to:1\nx")).toStrictEqual({ body: "[[reply_to:1\nx" });
  });

  it("stops at an empty first line", () => {
    expect(parseOutputDirectives("\n[[reply_to:1]]\nx")).toStrictEqual({ body: "\n[[reply_to:1]]\nx" });
  });

  it("takes the key before the first colon and the value up to the first ]]", () => {
    expect(parseOutputDirectives("[[reply_to:a:b]]\nx")).toStrictEqual({ body: "x" });
    expect(parseOutputDirectives("[[reply_to:ab]]]]\nx")).toStrictEqual({ replyTo: "ab", body: "]]\nx" });
  });

  it("accepts values of up to 64 characters of [A-Za-z0-9._-]", () => {
    const longest = "a".repeat(64);
    expect(parseOutputDirectives(`[[reply_to:${longest}]]\nx`)).toStrictEqual({ replyTo: longest, body: "x" });
    expect(parseOutputDirectives(`[[reply_to:${longest}b]]\nx`)).toStrictEqual({ body: "x" });
    expect(parseOutputDirectives("[[reply_to:A-z_0.9]]\nx")).toStrictEqual({ replyTo: "A-z_0.9", body: "x" });
    expect(parseOutputDirectives("[[reply_to:ünï]]\nx")).toStrictEqual({ body: "x" });
  });

  it("trims whitespace as Rust does: NEL is whitespace, a BOM is not", () => {
    expect(parseOutputDirectives("[[reply_to:7]]\u0085\nx")).toStrictEqual({ replyTo: "7", body: "x" });
    expect(parseOutputDirectives("\ufeff[[reply_to:7]]\nx")).toStrictEqual({ body: "\ufeff[[reply_to:7]]\nx" });
  });

  it("returns an empty body for empty output", () => {
    expect(parseOutputDirectives("")).toStrictEqual({ body: "" });
  });
});
