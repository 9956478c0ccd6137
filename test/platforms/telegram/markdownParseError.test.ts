import { describe, expect, it } from "vitest";
import { isMarkdownParseError } from "../../../src/platforms/telegram/markdownParseError.js";

describe("isMarkdownParseError (reference §6.5, test_is_markdown_parse_error)", () => {
  it.each([
    "Bad Request: can't find end of italic entity at byte offset 37",
    "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 4",
    "Bad Request: CAN'T PARSE ENTITIES",
  ])("%s is a parse error", (description) => expect(isMarkdownParseError(description)).toBe(true));
  it.each(["Unauthorized", "Bad Request: chat not found", "Bad Request: message is too long"])("%s is not", (description) => expect(isMarkdownParseError(description)).toBe(false));
});
