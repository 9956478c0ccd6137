import { describe, expect, it } from "vitest";
import { firstValueFrom } from "rxjs";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { BusTimeoutError } from "../../src/bus/errors.js";
import { SEND_ID_HEADER, type SendReply } from "../../src/wire/index.js";
import { until } from "../helpers/stack.js";
import { sendSubject, message, startEdge } from "./edgeFixture.js";

/** Long enough for a second post to reach the dev gateway if the edge made one. */
const settleMs = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("runEdge send responder", () => {
  it("answers a retry with the same send id from its record: same messageId, one reply frame", async () => {
    const { frames, request } = await startEdge();
    const first = await request({ [SEND_ID_HEADER]: "send-1" });
    const retry = await request({ [SEND_ID_HEADER]: "send-1" });

    expect(first).toMatchObject({ ok: true, messageId: expect.stringMatching(/^gw-[0-9a-f]{8}$/) });
    expect(retry).toEqual(first);
    await sleep(settleMs);
    expect(frames).toHaveLength(1);
  });

  it("posts once for a retry that arrives while the first post is still waiting for its ack", async () => {
    const { frames, request } = await startEdge({ ackDelayMs: 200 });
    const [first, retry] = await Promise.all([request({ [SEND_ID_HEADER]: "send-1" }), request({ [SEND_ID_HEADER]: "send-1" })]);

    expect(first).toMatchObject({ ok: true });
    expect(retry).toEqual(first);
    await sleep(settleMs);
    expect(frames).toHaveLength(1);
  });

  it("posts each of two sends with different ids: two reply frames, two message ids", async () => {
    const { frames, request } = await startEdge();
    const first = await request({ [SEND_ID_HEADER]: "send-1" });
    const second = await request({ [SEND_ID_HEADER]: "send-2" });

    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: true });
    expect(second).not.toEqual(first);
    await sleep(settleMs);
    expect(frames).toHaveLength(2);
  });

  it("always posts a request without a send id", async () => {
    const { frames, request } = await startEdge();
    const first = await request();
    const second = await request();

    expect(first).toMatchObject({ ok: true, messageId: expect.stringMatching(/^gw-/) });
    expect(second).toMatchObject({ ok: true, messageId: expect.stringMatching(/^gw-/) });
    expect(second).not.toEqual(first);
    await sleep(settleMs);
    expect(frames).toHaveLength(2);
  });

  it("answers a retry of a refused send with the same refusal, without posting again", async () => {
    const { frames, request } = await startEdge({ ack: () => ({ success: false, message_id: null, error: "chat not found" }) });
    const first = await request({ [SEND_ID_HEADER]: "send-1" });
    const retry = await request({ [SEND_ID_HEADER]: "send-1" });

    expect(first).toMatchObject({ ok: false, code: "legacy_failure" });
    expect(retry).toEqual(first);
    await sleep(settleMs);
    expect(frames).toHaveLength(1);
  });

  it("does not answer a send whose post settles after the responder was unsubscribed: the worker's request times out", async () => {
    const { frames, bus, edge } = await startEdge({ ackDelayMs: 200 });
    const answer = firstValueFrom(bus.request<OutboundMessage, SendReply>(sendSubject, message, { timeoutMs: 600, headers: { [SEND_ID_HEADER]: "send-1" } }));
    expect(await until(() => frames.length === 1, 5_000)).toBe(true);
    edge.responder.unsubscribe(); // the post is still waiting for its ack

    await expect(answer).rejects.toBeInstanceOf(BusTimeoutError);
  });

  it("remembers the last 10,000 send ids: the oldest is forgotten and posted again, the next is still answered from the record", async () => {
    const { frames, request } = await startEdge({}, { wantAck: false });
    const kept = 10_000;
    for (let n = 0; n <= kept; n += 1) await request({ [SEND_ID_HEADER]: `send-${n}` });
    expect(await until(() => frames.length === kept + 1, 15_000)).toBe(true);

    await request({ [SEND_ID_HEADER]: "send-1" });
    await request({ [SEND_ID_HEADER]: `send-${kept}` });
    await sleep(settleMs);
    expect(frames).toHaveLength(kept + 1);

    await request({ [SEND_ID_HEADER]: "send-0" });
    expect(await until(() => frames.length === kept + 2, 5_000)).toBe(true);
  }, 60_000);
});
