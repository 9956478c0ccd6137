import { describe, expect, it } from "vitest";
import { FileDownloads } from "../../../src/platforms/slack/fileDownloads.js";
import type { UrlDownload } from "../../../src/platforms/boundedDownload.js";
import { someConversations, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { captureLogs } from "../../helpers/logCapture.js";

const slack = useFakeSlack();

function downloads(token = slack.fake.botToken) {
  const { logger, records } = captureLogs();
  return { files: new FileDownloads({ token, apiRoot: slack.fake.apiUrl, timeoutMs: 5000, logger }), records };
}

function shared(): UrlDownload {
  const { dm, alice } = someConversations(slack.fake);
  const { file } = slack.fake.from(alice).shareFile(dm.id, { name: "a.txt", mimetype: "text/plain", bytes: "hello" });
  return { kind: "download", url: file.url_private_download, type: "text_file", filename: "a.txt", mime_type: "text/plain", size: 0, maxBytes: 1024 };
}

describe("FileDownloads", () => {
  it("fetches a shared file with the bot token", async () => {
    const { files } = downloads();
    expect(await files.attachment(shared())).toEqual({ type: "text_file", filename: "a.txt", mime_type: "text/plain", size: 5, data: Buffer.from("hello").toString("base64") });
  });

  it("Slack's sign-in page (the token not taken) is a failure, not the file", async () => {
    const { files, records } = downloads("xoxb-not-this-bot");
    expect((await files.attachment(shared())).status).toBe("download failed: Slack answered with a web page (does the app have files:read?)");
    expect(records.find((record) => record.msg === "slack attachment not downloaded")).toMatchObject({ reason: "download_failed", type: "text_file" });
  });

  it("stops reading past the cap", async () => {
    const { files } = downloads();
    expect((await files.attachment({ ...shared(), maxBytes: 3 })).status).toBe("size exceeded: 5 B exceeds 3 B");
  });

  it("never sends the token off Slack", async () => {
    const { files, records } = downloads();
    const elsewhere = { ...shared(), url: "https://files.example.com/a.txt" };
    expect((await files.attachment(elsewhere)).status).toBe("download failed: the file is not on Slack");
    expect(records.find((record) => record.msg === "slack attachment not downloaded")).toMatchObject({ reason: "untrusted_host" });
  });
});
