import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_BYTES } from "../../../src/platforms/fileKinds.js";
import { someConversations, until, useFakeSlack } from "../../fakes/slack/slackFixture.js";
import { useSlackPorts } from "./slackTestConfig.js";

// A document shared on Slack (a PDF, an archive: neither text, image nor audio) against the fake
// Slack: fetched with the bot token as any file, into a `file` attachment (issue 42 §5), which the
// prompt embeds when the agent takes it; one Slack says is over MAX_DOCUMENT_BYTES is not fetched.

const slack = useFakeSlack();
const portOf = useSlackPorts(() => slack.fake);

const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x00, 0xff]), Buffer.from("\n%%EOF\n")]);

describe("SlackPort: documents", () => {
  it("a shared PDF becomes a file attachment with its bytes; one over the cap its status, never fetched", async () => {
    const { fake } = slack;
    const { dm, alice } = someConversations(fake);
    const { port, events } = portOf();
    await port.prepare();
    port.start();
    await until(() => port.isConnected);
    fake.from(alice).shareFile(dm.id, { name: "deck.pdf", mimetype: "application/pdf", bytes: new Uint8Array(PDF) }, { text: "summarise" });
    fake.from(alice).shareFile(dm.id, { name: "dump.zip", mimetype: "application/zip", bytes: new Uint8Array(MAX_DOCUMENT_BYTES + 1) });
    await until(() => events.length === 2);
    // The oversized one needs no download, so it may come first.
    const of = (name: string) => events.find((event) => event.content.attachments?.[0]?.filename === name)!;
    expect(of("deck.pdf").content).toEqual({ type: "text", text: "summarise", attachments: [{ type: "file", filename: "deck.pdf", mime_type: "application/pdf", size: PDF.length, data: PDF.toString("base64") }] });
    expect(of("dump.zip").content.attachments).toEqual([
      { type: "file", filename: "dump.zip", mime_type: "application/zip", size: MAX_DOCUMENT_BYTES + 1, data: "", status: "size exceeded: 10.0 MB exceeds 10.0 MB" },
    ]);
  });
});
