import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NO_EMBEDDED_CONTEXT_STATUS } from "../../operators/ingress/prompt/attachmentBlock.js";
import { MAX_DOCUMENT_BYTES } from "../../src/platforms/fileKinds.js";
import { someChats, until, useFakeBotApi } from "../fakes/telegram/fakeBotApiFixture.js";
import { acpValidator } from "../helpers/acpSchema.js";
import { scratch } from "../helpers/agents.js";
import { startTelegramStack, type TelegramStack } from "../helpers/telegramStack.js";

// Issue 42 §5, end to end: a PDF a person sends on Telegram (the fake Bot API: getFile, then the
// file route) reaches the scripted agent's session/prompt as an ACP resource block when the agent
// advertised promptCapabilities.embeddedContext (EMBEDDED_CONTEXT=1), else as upstream's "not
// delivered" note; a document over MAX_DOCUMENT_BYTES is never downloaded and is the note either way.

const fake = useFakeBotApi();
const promptRequest = acpValidator("#/$defs/PromptRequest");
let stack: TelegramStack | undefined;
const dirs: { cleanup(): void }[] = [];
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
  for (const dir of dirs.splice(0)) dir.cleanup();
});

type Block = { type: string; text?: string; resource?: { uri: string; mimeType?: string; blob?: string } };

/** A file the scripted agent appends every stdin line to, and each `session/prompt`'s params as sent. */
function promptLog(): { readonly env: Record<string, string>; prompts(): { sessionId: string; prompt: Block[] }[] } {
  const dir = scratch();
  dirs.push(dir);
  const file = join(dir.dir, "stdin.log");
  return {
    env: { AGENT_STDIN_LOG: file },
    prompts: () =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.includes('"session/prompt"'))
        .map((line) => (JSON.parse(line) as { params: { sessionId: string; prompt: Block[] } }).params),
  };
}

// Binary, not UTF-8: the bytes must survive base64 both ways unchanged.
const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0x00, 0xff, 0x0a]), Buffer.from("%%EOF\n")]);

describe("a document sent on Telegram, in the agent's prompt", () => {
  it("the agent advertises embeddedContext: a resource block with the PDF's bytes; one over the cap: the note, never downloaded", async () => {
    const { alice, dm } = someChats(fake.api);
    const log = promptLog();
    stack = await startTelegramStack(fake.api, { agentEnv: { ...log.env, EMBEDDED_CONTEXT: "1" } });
    fake.api.from(alice).document(dm.id, PDF, { fileName: "Q3 report.pdf", mimeType: "application/pdf", caption: "prose" });
    await until(() => fake.api.botTexts(dm.id).length === 1, 15_000);
    const [first] = log.prompts();
    expect(promptRequest(first)).toBeUndefined();
    expect(first!.prompt.slice(1)).toEqual([
      { type: "text", text: "prose" },
      { type: "resource", resource: { uri: "attachment:///Q3%20report.pdf", mimeType: "application/pdf", blob: PDF.toString("base64") } },
    ]);
    expect(Buffer.from(first!.prompt[2]!.resource!.blob!, "base64").equals(PDF)).toBe(true);
    expect(stack.records.find((r) => r.msg === "agent initialized")).toMatchObject({ embeddedContext: true });

    const getFiles = fake.api.callsOf("getFile").length;
    fake.api.from(alice).document(dm.id, Buffer.alloc(MAX_DOCUMENT_BYTES + 1), { fileName: "huge.zip", mimeType: "application/zip", caption: "prose" });
    await until(() => fake.api.botTexts(dm.id).length === 2, 15_000);
    expect(log.prompts()[1]!.prompt.slice(1)).toEqual([
      { type: "text", text: '[System: attachment "huge.zip" (application/zip, 10.0 MB) was not delivered — size exceeded: 10.0 MB exceeds 10.0 MB]' },
      { type: "text", text: "prose" },
    ]);
    expect(fake.api.callsOf("getFile")).toHaveLength(getFiles);
  });

  it("the agent does not advertise it: upstream's not-delivered note, and the turn runs", async () => {
    const { alice, dm } = someChats(fake.api);
    const log = promptLog();
    stack = await startTelegramStack(fake.api, { agentEnv: log.env });
    fake.api.from(alice).document(dm.id, PDF, { fileName: "report.pdf", mimeType: "application/pdf", caption: "prose" });
    await until(() => fake.api.botTexts(dm.id).length === 1, 15_000);
    expect(fake.api.botTexts(dm.id)).toEqual(["hey what's up"]);
    const [first] = log.prompts();
    expect(promptRequest(first)).toBeUndefined();
    expect(first!.prompt.slice(1)).toEqual([
      { type: "text", text: `[System: attachment "report.pdf" (application/pdf, ${PDF.length} B) was not delivered — ${NO_EMBEDDED_CONTEXT_STATUS}]` },
      { type: "text", text: "prose" },
    ]);
    expect(stack.records.find((r) => r.msg === "agent initialized")).toMatchObject({ embeddedContext: false });
  });
});
