import { describe, expect, it } from "vitest";
import type { UserMessageMode } from "../../../src/config/sections/chatGates.js";
import { isDeniedUser } from "../../../src/platforms/discord/deniedUser.js";
import { detectThread, type ChannelKind } from "../../../src/platforms/discord/detectThread.js";
import { shouldCreateThread } from "../../../src/platforms/discord/shouldCreateThread.js";
import { userGateReason } from "../../../src/platforms/discord/userGate.js";
import { useStreaming } from "../../../src/platforms/discord/useStreaming.js";

// §6.2: multibot_mentions_*, involved_mode_ignores_multibot, mentions_mode_always_requires_mention, dm_must_bypass_user_message_gating
describe("userGateReason (mode, mentioned, in_thread, involved, other_bot)", () => {
  const mm = "multibot-mentions";
  it.each([
    [mm, false, true, true, false, true],
    [mm, false, true, true, true, false],
    [mm, true, true, true, true, true],
    [mm, false, false, false, false, false],
    [mm, false, true, false, false, false],
    ["involved", false, true, true, true, true],
    ["mentions", false, true, true, false, false],
    ["involved", false, false, false, false, false],
  ] as const)("(%s, %s, %s, %s, %s) → process %s", (mode, mentioned, inThread, involved, otherBot, processes) => {
    expect(userGateReason({ mode: mode as UserMessageMode, mentioned, inThread, involved, otherBot }) === undefined).toBe(processes);
  });

  it("a DM counts as mentioned, so it bypasses every mode", () => {
    for (const mode of ["involved", "mentions", "multibot-mentions"] as const) expect(userGateReason({ mode, mentioned: true, inThread: false, involved: false, otherBot: true })).toBeUndefined();
  });

  it("names why", () => {
    expect(userGateReason({ mode: "mentions", mentioned: false, inThread: true, involved: true, otherBot: false })).toBe("not_mentioned");
    expect(userGateReason({ mode: "involved", mentioned: false, inThread: false, involved: true, otherBot: false })).toBe("not_in_thread");
    expect(userGateReason({ mode: "involved", mentioned: false, inThread: true, involved: false, otherBot: false })).toBe("not_involved");
    expect(userGateReason({ mode: "multibot-mentions", mentioned: false, inThread: true, involved: true, otherBot: true })).toBe("multibot_thread");
  });
});

// §6.2: detect_thread_table, detect_thread_rejects_category_child_in_warn_and_stop
describe("detectThread", () => {
  const BOT = "1";
  const listed = { allowAll: false, allowedChannels: new Set(["100"]) };
  const thread = (id: string, parentId: string | undefined, ownerId: string): ChannelKind => ({ kind: "thread", id, parentId, ownerId });
  it.each([
    ["non-thread with a category parent", { kind: "channel", id: "300", parentId: "100" } as ChannelKind, listed, false, undefined],
    ["thread, parent listed, bot owner", thread("200", "100", BOT), listed, true, true],
    ["thread, parent listed, other owner", thread("200", "100", "9"), listed, true, false],
    ["thread, parent not listed, not allow-all", thread("200", "400", BOT), listed, false, true],
    ["thread, allow-all", thread("200", "400", "9"), { allowAll: true, allowedChannels: new Set<string>() }, true, false],
    ["thread whose own id is allowed", thread("100", "400", "9"), listed, true, false],
    ["thread without parent id, not allowed", thread("200", undefined, BOT), listed, false, true],
  ] as const)("%s → (%s, %s)", (_, channel, allowance, inThread, owns) => {
    expect(detectThread(channel, allowance, BOT)).toEqual({ inThread, botOwnsThread: owns });
  });
});

// §6.2: denied_user_*
describe("isDeniedUser", () => {
  const users = { allowAll: false, allowedUsers: new Set(["7"]) };
  it("a human not listed is denied; a listed one is not; a bot never is", () => {
    expect(isDeniedUser({ id: "8", isBot: false }, users)).toBe(true);
    expect(isDeniedUser({ id: "7", isBot: false }, users)).toBe(false);
    expect(isDeniedUser({ id: "8", isBot: true }, users)).toBe(false);
    expect(isDeniedUser({ id: "8", isBot: false }, { allowAll: true, allowedUsers: new Set() })).toBe(false);
  });
});

// §6.2: dm_skips_thread_creation, existing_thread_…, normal_channel_creates_thread; discord_streams_when_no_other_bot, …_no_stream_when_other_bot_present
describe("shouldCreateThread and useStreaming", () => {
  it("(in_thread, is_dm): (F,T) skip; (T,F) skip; (F,F) create", () => {
    expect(shouldCreateThread(false, true)).toBe(false);
    expect(shouldCreateThread(true, false)).toBe(false);
    expect(shouldCreateThread(false, false)).toBe(true);
  });

  it("streams unless another bot is present", () => {
    expect(useStreaming(false)).toBe(true);
    expect(useStreaming(true)).toBe(false);
  });
});
