import { describe, expect, it } from "vitest";
import { isThreadAlreadyExists } from "../../../src/platforms/discord/threadAlreadyExists.js";

// §6.2, discord.rs::is_thread_already_exists_*
describe("isThreadAlreadyExists", () => {
  it.each([
    ["160004", true],
    ["A thread has already been created for this message.", true],
    ["Missing Permissions", false],
    ["rate limit exceeded", false],
  ])("%j → %s", (text, expected) => {
    expect(isThreadAlreadyExists(text)).toBe(expected);
  });
});
