import { describe, expect, it } from "vitest";
import { API } from "@discordjs/core";
import { refusal, someGuild, useFakeDiscord } from "./fakeDiscordFixture.js";
import { UPLOAD_LIMIT_BYTES } from "./index.js";

/** The upload limit at its real size: 10 MiB through @discordjs/rest's multipart and the fake's parser (a few seconds). */
describe("fake Discord: the 10 MiB upload limit", () => {
  const discord = useFakeDiscord();

  it("takes a file of exactly 10 MiB, its bytes intact, and refuses one byte more with 413, code 40005", async () => {
    const { general } = someGuild(discord.fake);
    const api = new API(discord.rest);
    const limit = Buffer.alloc(UPLOAD_LIMIT_BYTES, 7);
    await api.channels.createMessage(general.id, { attachments: [{ id: 0, filename: "big.bin" }], files: [{ name: "big.bin", data: limit }] });
    const error = await refusal(api.channels.createMessage(general.id, { attachments: [{ id: 0, filename: "bigger.bin" }], files: [{ name: "bigger.bin", data: Buffer.alloc(UPLOAD_LIMIT_BYTES + 1) }] }));
    expect([error.status, error.rawError]).toEqual([413, { message: "Request entity too large", code: 40005 }]);
    const shown = discord.fake.shown(general.id);
    expect(shown.map((message) => message.attachments)).toEqual([["big.bin"]]);
    expect(shown[0]!.files[0]!.bytes.equals(limit)).toBe(true);
  });
});
