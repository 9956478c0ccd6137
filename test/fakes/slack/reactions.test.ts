import { describe, expect, it } from "vitest";
import { refusal, someConversations, useFakeSlack } from "./slackFixture.js";

describe("fake Slack: reactions.add and reactions.remove", () => {
  const slack = useFakeSlack();

  it("adds and removes the bot's reaction by short name; the conversation shows it", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const question = fake.from(alice).message(general.id, "question");
    await web.reactions.add({ channel: general.id, timestamp: question.ts, name: "eyes" });
    await web.reactions.add({ channel: general.id, timestamp: question.ts, name: "thumbsup::skin-tone-3" });
    expect(fake.shown(general.id)[0]!.reactions).toEqual(["eyes", "thumbsup::skin-tone-3"]);
    await web.reactions.remove({ channel: general.id, timestamp: question.ts, name: "eyes" });
    expect(fake.shown(general.id)[0]!.reactions).toEqual(["thumbsup::skin-tone-3"]);
  });

  it("refuses an unknown name, a Unicode emoji or :colons: (invalid_name); a custom emoji once added is known", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const { ts } = fake.from(alice).message(general.id, "hi");
    for (const name of ["not_an_emoji", "👀", ":eyes:", "thinking"]) expect(await refusal(web.reactions.add({ channel: general.id, timestamp: ts, name }))).toBe("invalid_name");
    expect(await refusal(web.reactions.add({ channel: general.id, timestamp: ts } as never))).toBe("invalid_name");
    fake.addEmoji("turnstream-logo");
    await expect(web.reactions.add({ channel: general.id, timestamp: ts, name: "turnstream-logo" })).resolves.toMatchObject({ ok: true });
  });

  it("already_reacted, no_reaction, message_not_found, bad_timestamp and no_item_specified, as Slack words them", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const { ts } = fake.from(alice).message(general.id, "hi");
    await web.reactions.add({ channel: general.id, timestamp: ts, name: "white_check_mark" });
    expect(await refusal(web.reactions.add({ channel: general.id, timestamp: ts, name: "white_check_mark" }))).toBe("already_reacted");
    expect(await refusal(web.reactions.remove({ channel: general.id, timestamp: ts, name: "x" }))).toBe("no_reaction");
    expect(await refusal(web.reactions.add({ channel: general.id, timestamp: "1.000001", name: "x" }))).toBe("message_not_found");
    expect(await refusal(web.reactions.add({ channel: general.id, timestamp: "yesterday", name: "x" }))).toBe("bad_timestamp");
    expect(await refusal(web.reactions.add({ channel: general.id, name: "x" } as never))).toBe("no_item_specified");
  });
});
