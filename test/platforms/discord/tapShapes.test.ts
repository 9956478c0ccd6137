import { describe, expect, it } from "vitest";
import { buttonRow, componentsOf } from "../../../src/platforms/discord/buttonRow.js";
import { conversationOf, interactionChannelKind } from "../../../src/platforms/discord/interactionChannel.js";
import type { MessageGates } from "../../../src/platforms/discord/messageVerdict.js";
import { readTapHandle, tapHandle } from "../../../src/platforms/discord/tapHandle.js";
import { tapVerdict, type TapFacts } from "../../../src/platforms/discord/tapVerdict.js";
import { SendError } from "../../../src/wire/index.js";

const OPEN: MessageGates = {
  allowAllChannels: true,
  allowedChannels: new Set(),
  allowAllUsers: true,
  allowedUsers: new Set(),
  allowBotMessages: "off",
  trustedBotIds: new Set(),
  allowUserMessages: "involved",
  allowedRoleIds: new Set(),
  allowDm: false,
};

const THREAD = { kind: "thread", id: "300", parentId: "200", ownerId: undefined } as const;
const FACTS: TapFacts = { customId: "q1:allow", messageId: "400", user: { id: "500", username: "alice", global_name: "Alice" }, nick: "Ally", channel: THREAD, botId: "100" };

describe("componentsOf / buttonRow: choices as one action row", () => {
  it("undefined leaves the components, [] removes them, choices make one row of grey buttons", () => {
    expect(componentsOf({})).toBeUndefined();
    expect(componentsOf({ choices: [], command: "edit_message" })).toEqual([]);
    expect(componentsOf({ choices: [{ label: "Yes", data: "q:y" }] })).toEqual([{ type: 1, components: [{ type: 2, style: 2, label: "Yes", custom_id: "q:y" }] }]);
  });

  it("cuts a label over 80 characters; refuses what Discord would: six, no label, empty or long data, repeats", () => {
    expect(buttonRow([{ label: "x".repeat(90), data: "d" }], "send").components[0]!.label).toBe(`${"x".repeat(79)}…`);
    const refusal = (choices: { label: string; data: string }[]) => {
      try {
        buttonRow(choices, "send");
      } catch (err) {
        return err instanceof SendError ? err.code : err;
      }
      return "accepted";
    };
    expect(refusal([1, 2, 3, 4, 5, 6].map((n) => ({ label: `${n}`, data: `d${n}` })))).toBe("rejected");
    expect(refusal([{ label: "  ", data: "d" }])).toBe("rejected");
    expect(refusal([{ label: "l", data: "" }])).toBe("rejected");
    expect(refusal([{ label: "l", data: "x".repeat(101) }])).toBe("rejected");
    expect(refusal([{ label: "a", data: "d" }, { label: "b", data: "d" }])).toBe("rejected");
    expect(refusal([1, 2, 3, 4, 5].map((n) => ({ label: `${n}`, data: `d${n}` })))).toBe("accepted");
  });
});

describe("tapHandle: application id and token, and nothing else", () => {
  it("reads back what it wrote; refuses anything that is not a snowflake and a path-safe token", () => {
    const handle = { applicationId: "1311111111111111111", token: "aW50ZXJhY3Rpb246MTIz.abc_-" };
    expect(readTapHandle(tapHandle(handle))).toEqual(handle);
    expect(readTapHandle("no-colon")).toBeUndefined();
    expect(readTapHandle("app:token")).toBeUndefined();
    expect(readTapHandle("1311111111111111111:")).toBeUndefined();
    expect(readTapHandle("1311111111111111111:../../users/@me")).toBeUndefined();
    expect(readTapHandle("1311111111111111111:a?b")).toBeUndefined();
    expect(readTapHandle(`1311111111111111111:${"t".repeat(1001)}`)).toBeUndefined();
  });
});

describe("tapVerdict: which taps become events, and where", () => {
  it("a tap in a thread is the thread's conversation, its sender as a message's", () => {
    expect(tapVerdict(FACTS, OPEN)).toEqual({
      kind: "accept",
      data: "q1:allow",
      messageId: "400",
      channel: { id: "200", type: "thread", thread_id: "300" },
      sender: { id: "500", name: "alice", display_name: "Ally", is_bot: false },
    });
    expect(tapVerdict({ ...FACTS, nick: null }, OPEN)).toMatchObject({ sender: { display_name: "Alice" } });
  });

  it("a DM keys as the DM (with allow_dm); a plain channel as the channel; an unknown one is dropped", () => {
    expect(tapVerdict({ ...FACTS, channel: { kind: "dm", id: "600" } }, { ...OPEN, allowDm: true })).toMatchObject({ channel: { id: "600", type: "dm" } });
    expect(tapVerdict({ ...FACTS, channel: { kind: "dm", id: "600" } }, OPEN)).toEqual({ kind: "drop", reason: "dm_not_allowed", refused: true });
    expect(tapVerdict({ ...FACTS, channel: { kind: "channel", id: "200", parentId: undefined } }, OPEN)).toMatchObject({ channel: { id: "200", type: "channel" } });
    expect(tapVerdict({ ...FACTS, channel: { kind: "unknown", id: "200" } }, OPEN)).toEqual({ kind: "drop", reason: "channel_unknown", refused: false });
  });

  it("malformed: data not a string, empty or over 64 bytes (UTF-8), no message, no user", () => {
    const reason = (facts: Partial<TapFacts>) => {
      const verdict = tapVerdict({ ...FACTS, ...facts }, OPEN);
      return verdict.kind === "drop" ? [verdict.reason, verdict.refused] : "accept";
    };
    expect(reason({ customId: 7 })).toEqual(["data_invalid", false]);
    expect(reason({ customId: "" })).toEqual(["data_invalid", false]);
    expect(reason({ customId: "x".repeat(64) })).toBe("accept");
    expect(reason({ customId: "x".repeat(65) })).toEqual(["data_too_long", false]);
    expect(reason({ customId: "é".repeat(33) })).toEqual(["data_too_long", false]);
    expect(reason({ messageId: undefined })).toEqual(["no_message", false]);
    expect(reason({ messageId: "../x" })).toEqual(["no_message", false]);
    expect(reason({ user: undefined })).toEqual(["no_user", false]);
    expect(reason({ user: { id: 5 } })).toEqual(["no_user", false]);
  });

  it("the gates where they apply: channel allow-list, bots, allowed_users", () => {
    const verdict = (facts: Partial<TapFacts>, gates: Partial<MessageGates>) => tapVerdict({ ...FACTS, ...facts }, { ...OPEN, ...gates });
    expect(verdict({}, { allowAllChannels: false, allowedChannels: new Set(["999"]) })).toMatchObject({ reason: "channel_not_allowed", refused: true });
    expect(verdict({}, { allowAllChannels: false, allowedChannels: new Set(["200"]) })).toMatchObject({ kind: "accept" });
    const bot = { user: { id: "700", username: "otherbot", bot: true } };
    expect(verdict(bot, {})).toMatchObject({ reason: "bot_messages_off" });
    expect(verdict(bot, { allowBotMessages: "all", trustedBotIds: new Set(["701"]) })).toMatchObject({ reason: "bot_not_trusted" });
    expect(verdict(bot, { allowBotMessages: "all", allowAllUsers: false })).toMatchObject({ kind: "accept", sender: { is_bot: true } });
    expect(verdict({}, { allowAllUsers: false, allowedUsers: new Set(["501"]) })).toMatchObject({ reason: "denied_user", refused: true });
  });
});

describe("interactionChannelKind: where an interaction was used", () => {
  const directory = (kind: unknown) => ({ kindOf: async () => kind }) as never;
  it("a thread from its partial channel; one without a parent, or no partial, asked of the directory; a DM without a guild", async () => {
    expect(await interactionChannelKind({ guild_id: "1", channel: { id: "300", type: 11, parent_id: "200" } }, directory(undefined))).toEqual(THREAD);
    expect(await interactionChannelKind({ guild_id: "1", channel: { id: "300", type: 11 } }, directory(THREAD))).toEqual(THREAD);
    expect(await interactionChannelKind({ guild_id: "1", channel_id: "300" }, directory(THREAD))).toEqual(THREAD);
    expect(await interactionChannelKind({ channel: { id: "600", type: 1 } }, directory(undefined))).toEqual({ kind: "dm", id: "600" });
    expect(await interactionChannelKind({ guild_id: "1", channel: { id: "200", type: 0, parent_id: null } }, directory(undefined))).toEqual({ kind: "channel", id: "200", parentId: undefined });
    expect(conversationOf({ kind: "channel", id: "200", parentId: undefined })).toBeUndefined();
  });
});
