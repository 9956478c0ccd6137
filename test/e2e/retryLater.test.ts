import { afterEach, describe, expect, it } from "vitest";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { startStack, stackBuses, until, userEvent, useStackBus, type Stack } from "../helpers/stack.js";

// A gateway that refuses writes for now (`rejected` + `retry_after_ms`, OpenAB's response.v1
// §5.5): the broker waits and sends the same message again, in order, and the turn succeeds. An
// `unknown` outcome is never sent again. Real dev gateway, the scripted agent, both buses.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Every acked frame as it arrived, whether the gateway took it, with the time it came. */
interface Arrival {
  readonly text: string;
  readonly at: number;
  readonly accepted: boolean;
}

async function start(refuse: (acked: number) => Record<string, unknown> | undefined): Promise<{ s: Stack; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  let acked = 0;
  const ack = (frame: ReplyFrame): Record<string, unknown> => {
    acked += 1;
    const refusal = refuse(acked);
    arrivals.push({ text: frame.content.text, at: Date.now(), accepted: refusal === undefined });
    return refusal ?? {};
  };
  stack = await startStack({ config: { delivery: { mode: "structured", bubble_delay_ms: 100 }, reactions: { enabled: false } }, gateway: { ack } });
  return { s: stack, arrivals };
}

const settled = (s: Stack, msg: string) => until(() => s.records.some((r) => r.msg === msg), 20_000);

describe.each(stackBuses())("a gateway's 'try again later' (%s bus)", (bus) => {
  useStackBus(bus);

  it("every third write refused with retry_after_ms 1500: each message arrives once, ≥ 1.5 s after its refusal, in order; the turn succeeds", async () => {
    const { s, arrivals } = await start((n) => (n % 3 === 0 ? { success: false, outcome: "rejected", error_code: "rate_limited", error: "slow down", retry_after_ms: 1_500 } : undefined));
    s.gateway.broadcast(userEvent("envelope"));
    expect(await settled(s, "turn complete")).toBe(true);
    const accepted = arrivals.filter((a) => a.accepted).map((a) => a.text);
    expect(accepted).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
    const refused = arrivals.findIndex((a) => !a.accepted);
    expect(arrivals[refused]?.text).toBe("gate B12");
    const retried = arrivals[refused + 1];
    expect(retried).toMatchObject({ text: "gate B12", accepted: true });
    expect((retried?.at ?? 0) - (arrivals[refused]?.at ?? 0)).toBeGreaterThanOrEqual(1_450);
    expect(s.records.some((r) => r.msg === "turn failed")).toBe(false);
    expect(s.records.find((r) => r.msg === "platform asked to send later; sending again")).toMatchObject({ reason: "retry_later", code: "rate_limited", retryAfterMs: 1_500, attempt: 1 });
  });

  it("an unknown outcome is never sent again: the message went out once and the turn fails", async () => {
    const { s, arrivals } = await start((n) => (n === 2 ? { success: false, outcome: "unknown", error_code: "rate_limited", error: "lost", retry_after_ms: 100 } : undefined));
    s.gateway.broadcast(userEvent("envelope"));
    expect(await settled(s, "turn failed")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(arrivals.filter((a) => a.text === "your flight moved to 8pm")).toHaveLength(1);
    expect(s.records.some((r) => r.msg === "platform asked to send later; sending again")).toBe(false);
  });
});
