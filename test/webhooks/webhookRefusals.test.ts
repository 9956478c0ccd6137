import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WebhookRefusals } from "../../src/webhooks/webhookRefusals.js";
import { captureLogs } from "../helpers/logCapture.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("WebhookRefusals", () => {
  it("logs the first refusal of each endpoint and reason at once, and sums a flood into a line per window", () => {
    const { logger, records } = captureLogs();
    const refusals = new WebhookRefusals(logger);
    for (let i = 0; i < 500; i++) refusals.refused("signature_wrong", 401, "alerts");
    refusals.refused("signature_wrong", 401, "deploys");
    refusals.refused("not_found", 404, undefined);
    expect(records.map((r) => [r.msg, r["reason"], r["status"], r["endpoint"], r["count"]])).toEqual([
      ["webhook request refused", "signature_wrong", 401, "alerts", 1],
      ["webhook request refused", "signature_wrong", 401, "deploys", 1],
      ["webhook request refused", "not_found", 404, undefined, 1],
    ]);
    vi.advanceTimersByTime(5_000);
    expect(records.slice(3).map((r) => [r["reason"], r["endpoint"], r["count"]])).toEqual([["signature_wrong", "alerts", 499]]);
  });

  it("logs a delivery the broker did not take with its error, then counts the run", () => {
    const { logger, records } = captureLogs();
    const refusals = new WebhookRefusals(logger);
    refusals.notQueued("alerts", new Error("broker stopped"));
    refusals.notQueued("alerts", new Error("broker stopped"));
    refusals.flush();
    expect(records.map((r) => [r.msg, r["reason"], r["status"], r["count"], (r["err"] as { message?: string } | undefined)?.message])).toEqual([
      ["webhook delivery not queued", "submit_failed", 503, 1, "broker stopped"],
      ["webhook delivery not queued", "submit_failed", 503, 1, undefined],
    ]);
  });
});
