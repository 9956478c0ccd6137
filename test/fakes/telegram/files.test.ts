import { describe, expect, it } from "vitest";
import { refusal, someChats, TOKEN, useFakeBotApi } from "./fakeBotApiFixture.js";

describe("fake Bot API: files users send", () => {
  const fake = useFakeBotApi();

  it("getFile answers a voice note's file_path and GET /file/bot<token>/<file_path> serves its bytes", async () => {
    const { alice, dm } = someChats(fake.api);
    const bytes = Buffer.from([0x4f, 0x67, 0x67, 0x53, 0x00, 0xff, 0x10]);
    const voice = fake.api.from(alice).voice(dm.id, bytes, { duration: 2 }).message!.voice!;
    const file = await fake.client.getFile(voice.file_id);
    expect(file).toEqual({ file_id: voice.file_id, file_unique_id: voice.file_unique_id, file_size: bytes.length, file_path: expect.stringMatching(/^voice\/file_\d+\.oga$/) });
    const download = await fetch(`${fake.api.root}/file/bot${TOKEN}/${file.file_path}`);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it("serves the largest size of a photo and a document's bytes", async () => {
    const { alice, dm } = someChats(fake.api);
    const photo = fake.api.from(alice).photo(dm.id, "jpeg!", { width: 800, height: 600 }).message!.photo!;
    const largest = photo.at(-1)!;
    expect(largest).toMatchObject({ width: 800, height: 600 });
    const path = (await fake.client.getFile(largest.file_id)).file_path!;
    expect(await (await fetch(`${fake.api.root}/file/bot${TOKEN}/${path}`)).text()).toBe("jpeg!");
    const document = fake.api.from(alice).document(dm.id, "a,b\n1,2\n", { fileName: "table.csv", mimeType: "text/csv" }).message!.document!;
    const documentPath = (await fake.client.getFile(document.file_id)).file_path!;
    expect(documentPath).toMatch(/^documents\/file_\d+\.csv$/);
    expect(await (await fetch(`${fake.api.root}/file/bot${TOKEN}/${documentPath}`)).text()).toBe("a,b\n1,2\n");
  });

  it("refuses an unknown file_id and a missing one; a download with a wrong token or path fails", async () => {
    const { alice, dm } = someChats(fake.api);
    expect((await refusal(fake.client.getFile("AgACnope"))).description).toBe("Bad Request: invalid file_id");
    expect((await refusal(fake.client.raw.getFile({} as never))).description).toBe("Bad Request: file_id not specified");
    const voice = fake.api.from(alice).voice(dm.id, "x").message!.voice!;
    const path = (await fake.client.getFile(voice.file_id)).file_path!;
    expect((await fetch(`${fake.api.root}/file/bot123:wrong/${path}`)).status).toBe(401);
    expect((await fetch(`${fake.api.root}/file/bot${TOKEN}/voice/file_999.oga`)).status).toBe(404);
  });
});
