import { afterEach, describe, expect, it } from "vitest";
import { startStack, stackBuses, until, useStackBus, userEvent, type Stack, type StackOptions } from "../helpers/stack.js";

// Issue 42's gateway acceptance, end to end: a child-process agent streams a picture between two
// texts; over the gateway protocol with supports_outbound_attachments the reply frame carries it,
// without it the chat gets the one-line notice. On the embedded bus and on NATS (the object store).

const { pictureBytes } = (await import(new URL("../../fixtures/agents/scenarios.mjs", import.meta.url).href)) as { pictureBytes: (size: number) => Buffer };

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function start(options: StackOptions): Promise<Stack> {
  stack = await startStack(options);
  if (options.gateway?.hello !== undefined || options.outboundFiles === true) {
    expect(await until(() => stack!.records.some((r) => r.msg === "gateway capabilities negotiated"), 10_000)).toBe(true);
  }
  return stack;
}

const turnOver = (s: Stack) => until(() => s.records.some((r) => r.msg === "turn complete" || r.msg === "turn failed"), 30_000);

describe.each(stackBuses())("files over the gateway protocol (%s bus)", (bus) => {
  useStackBus(bus);

  it("with supports_outbound_attachments: the picture travels inline in its reply frame, between the two texts, bytes equal", async () => {
    const s = await start({ outboundFiles: true });
    s.gateway.broadcast(userEvent("image 3000"));
    await s.replyCount(3);
    expect(await turnOver(s)).toBe(true);

    expect(s.replies.map((frame) => [frame.content.text, frame.content.attachments?.length ?? 0])).toEqual([
      ["Here is the chart:", 0],
      ["", 1],
      ["The red line is last week.", 0],
    ]);
    expect(s.files).toHaveLength(1);
    const [file] = s.files;
    expect(file).toMatchObject({ type: "image", mime_type: "image/png", size: 3000 });
    expect(file?.bytes.equals(pictureBytes(3000))).toBe(true);
  });

  it("without it (a legacy gateway): the one-line notice in the picture's place, no bytes", async () => {
    const s = await start({});
    s.gateway.broadcast(userEvent("image 3000"));
    await s.replyCount(3);
    expect(await turnOver(s)).toBe(true);

    expect(s.replies.map((frame) => frame.content.text)).toEqual([
      "Here is the chart:",
      expect.stringMatching(/^📎 \S+ \(2\.9 KB\) could not be sent here$/),
      "The red line is last week.",
    ]);
    expect(s.files).toEqual([]);
    expect(JSON.stringify(s.replies)).not.toContain("attachments");
  });
});
