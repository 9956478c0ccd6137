import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { AnsweredSends } from "../../src/edge/answeredSends.js";
import type { SendReply } from "../../src/wire/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const ok = (messageId: string): SendReply => ({ ok: true, messageId });

/** A send that settles when told to, counting how often it was made. */
function deferredSend() {
  let settle!: (reply: SendReply) => void;
  let calls = 0;
  const send = () => {
    calls += 1;
    return new Promise<SendReply>((resolve) => (settle = resolve));
  };
  return { send, settle: (reply: SendReply) => settle(reply), calls: () => calls };
}

describe("AnsweredSends", () => {
  it("a retry while the first send is in flight joins it: one send, the same answer", async () => {
    const answers = new AnsweredSends(10);
    const first = deferredSend();
    const a = answers.answer("s1", first.send);
    const b = answers.answer("s1", first.send);
    first.settle(ok("m1"));
    expect(await a).toEqual(ok("m1"));
    expect(await b).toEqual(ok("m1"));
    expect(first.calls()).toBe(1);
  });

  it("a retry after the send settled gets the remembered answer, failures included", async () => {
    const answers = new AnsweredSends(10);
    const refused: SendReply = { ok: false, code: "legacy_failure", error: "chat not found" };
    await answers.answer("s1", () => Promise.resolve(refused));
    const again = deferredSend();
    expect(await answers.answer("s1", again.send)).toEqual(refused);
    expect(again.calls()).toBe(0);
  });

  it("always sends a request without a send id, and remembers nothing for it", async () => {
    const answers = new AnsweredSends(10);
    const sends = deferredSend();
    const a = answers.answer(undefined, sends.send);
    sends.settle(ok("m1"));
    const b = answers.answer(undefined, sends.send);
    sends.settle(ok("m2"));
    expect([await a, await b]).toEqual([ok("m1"), ok("m2")]);
    expect(sends.calls()).toBe(2);
    expect(answers.size).toBe(0);
  });

  it("forgets the oldest answer past its cap, by first use (settling does not make an answer younger)", async () => {
    const answers = new AnsweredSends(2);
    const slow = deferredSend();
    const s1 = answers.answer("s1", slow.send);
    await answers.answer("s2", () => Promise.resolve(ok("m2")));
    slow.settle(ok("m1"));
    await s1;
    await answers.answer("s3", () => Promise.resolve(ok("m3")));
    expect(answers.size).toBe(2);
    const resend = deferredSend();
    const retried = answers.answer("s1", resend.send);
    expect(resend.calls()).toBe(1); // s1 was the oldest: forgotten, so posted again
    resend.settle(ok("m1b"));
    expect(await retried).toEqual(ok("m1b"));
  });

  // The soak benchmark found each remembered answer holding its request and the requesting turn's
  // operator chain (~3.6 KB each, 35 MiB at the cap): a settled answer must hold only the reply.
  it("a settled answer keeps nothing of the request that produced it", async () => {
    const answers = new AnsweredSends(10);
    let request: WeakRef<object> | undefined;
    const post = () => {
      const message = { text: "x".repeat(10_000) };
      request = new WeakRef(message);
      return answers.answer("s1", () => Promise.resolve(message).then(() => ok("m1")));
    };
    await post();
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(request?.deref()).toBeUndefined();
    expect(await answers.answer("s1", () => Promise.resolve(ok("other")))).toEqual(ok("m1"));
  });
});
