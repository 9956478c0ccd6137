import { describe, expect, it } from "vitest";
import { displayNameOf } from "../../../src/platforms/slack/displayName.js";
import { isPlainUserMessage } from "../../../src/platforms/slack/plainUserMessage.js";
import { slackFileUrl } from "../../../src/platforms/slack/slackFileUrl.js";
import { slackTsToIso8601 } from "../../../src/platforms/slack/slackTimestamp.js";
import { stripMimeParams } from "../../../src/platforms/fileKinds.js";

describe("isPlainUserMessage (§6.4)", () => {
  it("needs text", () => {
    expect(isPlainUserMessage("", "")).toBe(false);
    expect(isPlainUserMessage("me_message", "")).toBe(false);
    expect(isPlainUserMessage("", "hello")).toBe(true);
  });

  it("takes me_message, thread_broadcast and file_share with text", () => {
    for (const subtype of ["me_message", "thread_broadcast", "file_share"]) expect(isPlainUserMessage(subtype, "hi")).toBe(true);
  });

  it("refuses every other subtype, with text", () => {
    const others = ["pinned_item", "unpinned_item", "channel_name", "channel_archive", "channel_unarchive", "group_join", "group_leave", "group_topic", "group_purpose", "reminder_add", "tombstone"];
    for (const subtype of others) expect(isPlainUserMessage(subtype, "hi")).toBe(false);
  });
});

describe("slackFileUrl (§6.4)", () => {
  it("prefers url_private_download, then url_private, else empty", () => {
    expect(slackFileUrl({ url_private_download: "https://d", url_private: "https://p" })).toBe("https://d");
    expect(slackFileUrl({ url_private: "https://p" })).toBe("https://p");
    expect(slackFileUrl({})).toBe("");
    expect(slackFileUrl({ url_private_download: 7, url_private: "" })).toBe("");
  });
});

describe("stripMimeParams (§6.4)", () => {
  it("drops parameters and spaces", () => {
    expect(stripMimeParams("text/plain; charset=utf-8")).toBe("text/plain");
    expect(stripMimeParams("  text/plain  ")).toBe("text/plain");
    expect(stripMimeParams("")).toBe("");
  });
});

describe("slackTsToIso8601 (§6.4)", () => {
  it("reads seconds and the first three fraction digits", () => {
    expect(slackTsToIso8601("0.000000")).toBe("1970-01-01T00:00:00.000Z");
    expect(slackTsToIso8601("1714204397.123456")).toBe("2024-04-27T07:53:17.123Z");
    expect(slackTsToIso8601("1714204397")).toBe("2024-04-27T07:53:17.000Z");
    expect(slackTsToIso8601("1714204397.12")).toBe("2024-04-27T07:53:17.120Z");
    expect(slackTsToIso8601("1714204397.1")).toBe("2024-04-27T07:53:17.100Z");
  });

  it("reads anything else as the epoch", () => {
    for (const ts of ["not-a-ts", "", "1.2.3", "-5.000000", "99999999999999999.0"]) expect(slackTsToIso8601(ts)).toBe("1970-01-01T00:00:00.000Z");
  });
});

describe("displayNameOf (§3.8)", () => {
  it("takes display name, real name, name, then the id", () => {
    expect(displayNameOf({ name: "ali", profile: { display_name: "Ali", real_name: "Alice" } }, "U1")).toBe("Ali");
    expect(displayNameOf({ name: "ali", profile: { display_name: "", real_name: "Alice" } }, "U1")).toBe("Alice");
    expect(displayNameOf({ name: "ali", profile: { display_name: " " } }, "U1")).toBe("ali");
    expect(displayNameOf({ profile: null }, "U1")).toBe("U1");
    expect(displayNameOf(undefined, "U1")).toBe("U1");
  });
});
