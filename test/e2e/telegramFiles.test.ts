import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the test agent, typed by its JSDoc only
import { pictureBytes } from "../../fixtures/agents/scenarios.mjs";
import { someChats, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { mcpAgentPath } from "../helpers/askChats.js";
import { startTelegramStack, type TelegramStack } from "../helpers/telegramStack.js";

// Issue 42's acceptance on the fake Bot API, with real child-process agents: an image block the
// agent streams between two texts arrives as a photo between two messages, a resource_link to a
// 3 MB PDF as a document, a silent structured turn's picture alone, and `send_file` through the
// MCP SDK client (fixtures/agents/mcp-agent.mjs) under the path rule and the size limit.

const fake = useFakeBotApi();
let stack: TelegramStack | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const picture = (size: number): Buffer => pictureBytes(size) as Buffer;

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ts-files-"));
  dirs.push(dir);
  return dir;
}

/** The bot's messages in the chat as the person sees them: text, or the file's kind and name. */
function seen(chatId: number): string[] {
  return fake.api
    .shown(chatId)
    .filter((message) => message.from_bot)
    .map((message) => (message.file === undefined ? `text: ${message.text ?? ""}` : `${message.file.kind}: ${message.file.name ?? ""}${message.caption === undefined ? "" : ` (${message.caption})`}`));
}

const fileOf = (chatId: number, index = 0) => fake.api.shown(chatId).filter((message) => message.file !== undefined)[index]?.file;

describe("Telegram: files from the agent's stream", () => {
  for (const streaming of [false, true]) {
    it(`an image block between two texts is a photo between two messages, bytes equal (streaming ${streaming ? "on" : "off"})`, async () => {
      const { alice, dm } = someChats(fake.api);
      stack = await startTelegramStack(fake.api, { telegram: { streaming } });
      fake.api.from(alice).text(dm.id, "image 4096");
      await until(() => seen(dm.id).length === 3, 15_000);
      expect(seen(dm.id)).toEqual(["text: Here is the chart:", "photo: ", "text: The red line is last week."]);
      expect(fake.api.callsOf("sendPhoto").filter((call) => call.ok === true)).toHaveLength(1);
      expect(fileOf(dm.id)!.bytes.equals(picture(4096))).toBe(true);
    });
  }

  it("a resource_link to a 3 MB PDF in the working directory is a document, bytes equal", async () => {
    const { alice, dm } = someChats(fake.api);
    const dir = workDir();
    const pdf = Buffer.alloc(3 * 1024 * 1024, 7);
    pdf.write("%PDF-1.7\n", 0, "latin1");
    writeFileSync(join(dir, "report.pdf"), pdf);
    stack = await startTelegramStack(fake.api, { config: { agent: { working_dir: dir } } });
    fake.api.from(alice).text(dm.id, "filelink report.pdf");
    await until(() => seen(dm.id).length === 3, 20_000);
    expect(seen(dm.id)).toEqual(["text: The report:", "document: report.pdf", "text: That is all."]);
    expect(fileOf(dm.id)!.bytes.equals(pdf)).toBe(true);
  });

  it("a silent structured turn with a picture: the picture alone", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api, { config: { delivery: { mode: "structured" } } });
    fake.api.from(alice).text(dm.id, "silentimage 1000");
    await until(() => seen(dm.id).length === 1, 15_000);
    expect(seen(dm.id)).toEqual(["photo: "]);
    expect(fileOf(dm.id)!.bytes.equals(picture(1000))).toBe(true);
  });

  it("a turn that fails after a picture still delivers it, after the text it followed (the error heads the text, as upstream)", async () => {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api);
    fake.api.from(alice).text(dm.id, "imagefail");
    await until(() => seen(dm.id).length === 2, 15_000);
    const [text, photo] = seen(dm.id);
    expect(text).toMatch(/^text: ⚠️ .*simulated agent failure[\s\S]*Drawing…$/);
    expect(photo).toBe("photo: ");
    expect(fileOf(dm.id)!.bytes.equals(picture(512))).toBe(true);
  });
});

describe("Telegram: send_file through the MCP SDK client", () => {
  const toolResults = (s: TelegramStack) =>
    s
      .agentEvents()
      .filter((line) => line.startsWith("tool-result "))
      .map((line) => JSON.parse(line.slice(line.indexOf("{"))) as { isError: boolean; text: string });

  async function sendFile(args: Record<string, unknown>, dir: string): Promise<{ dm: { id: number }; result: { isError: boolean; text: string } }> {
    const { alice, dm } = someChats(fake.api);
    stack = await startTelegramStack(fake.api, { config: { agent: { command: process.execPath, args: [mcpAgentPath], working_dir: dir } } });
    fake.api.from(alice).text(dm.id, `sendfile ${JSON.stringify(args)}`);
    await until(() => toolResults(stack!).length === 1 && seen(dm.id).some((line) => line.includes("Sent.")), 20_000);
    return { dm, result: toolResults(stack!)[0]! };
  }

  it("a path inside the working directory is delivered, with its caption, between the turn's texts", async () => {
    const dir = workDir();
    writeFileSync(join(dir, "notes.txt"), "line one\nline two\n");
    const { dm, result } = await sendFile({ path: "notes.txt", caption: "the notes" }, dir);
    expect(result).toEqual({ isError: false, text: "Accepted notes.txt (18 B): it is sent with your reply." });
    expect(seen(dm.id)).toEqual(["text: Sending it now.", "document: notes.txt (the notes)", "text: Sent."]);
    expect(fileOf(dm.id)!.bytes.toString()).toBe("line one\nline two\n");
  });

  const REFUSED = { isError: true, text: "No such file may be sent. Give a path to a regular file inside your working directory. Nothing was sent." };

  for (const [name, path] of [
    ["../../etc/passwd", "../../etc/passwd"],
    ["an absolute path outside", "/etc/hostname"],
    ["a symlink pointing outside", "link"],
    ["a missing file", "missing.pdf"],
  ] as const) {
    it(`${name}: the one generic error, and nothing but the turn's text is sent`, async () => {
      const dir = workDir();
      symlinkSync("/etc/hostname", join(dir, "link"));
      const { dm, result } = await sendFile({ path }, dir);
      expect(result).toEqual(REFUSED);
      expect(seen(dm.id)).toEqual(["text: Sending it now.\n\nSent."]);
      expect(fake.api.callsOf("sendDocument")).toEqual([]);
    });
  }

  it("60 MB: the too-big notice in the chat and a tool error naming the limit, nothing uploaded", async () => {
    const dir = workDir();
    writeFileSync(join(dir, "big.bin"), "");
    truncateSync(join(dir, "big.bin"), 60 * 1000 * 1000);
    const { dm, result } = await sendFile({ path: "big.bin" }, dir);
    expect(result).toEqual({ isError: true, text: "The file is over this chat's size limit of 47.7 MB; the person is told its name and size. Nothing else was sent." });
    expect(seen(dm.id)).toEqual(["text: Sending it now.", "text: 📎 big.bin (57.2 MB) could not be sent here", "text: Sent."]);
    expect(fake.api.callsOf("sendDocument")).toEqual([]);
  });
});
