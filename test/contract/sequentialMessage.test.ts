import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyUpdate, sessionUpdateParams } from "../../src/acp/sessionUpdate.js";

// The seam between agent and broker (delivery-and-triage.md §10): the shared fixture's bytes, never
// an inline copy, so a producer-side change shows up here.
const fixtureBytes = readFileSync(new URL("../../fixtures/sequential-message-v1.json", import.meta.url));

/** The broker's reading of one `session/update` notification: throws unless it is the fixture's bubble. */
function expectFixtureBubble(notification: unknown): void {
  const { method, params } = notification as { method?: unknown; params?: unknown };
  expect(method).toBe("session/update");
  const parsed = sessionUpdateParams.parse(params);
  expect(classifyUpdate(parsed.update)).toStrictEqual({
    type: "openab_message",
    id: "bubble_2",
    text: "your flight moved to 8pm\ngate B12",
  });
}

/** A deep copy of the fixture with `mutate` applied to its `params.update`. */
function mutatedUpdate(mutate: (update: Record<string, unknown>) => void): unknown {
  const copy = JSON.parse(fixtureBytes.toString("utf8")) as { params: { update: Record<string, unknown> } };
  mutate(copy.params.update);
  return copy;
}

describe("contract: fixtures/sequential-message-v1.json", () => {
  it("classifies the fixture's update as the bubble it carries", () => {
    expectFixtureBubble(JSON.parse(fixtureBytes.toString("utf8")));
  });

  it("is plain UTF-8 JSON-RPC without a byte-order mark", () => {
    expect(fixtureBytes[0]).toBe("{".charCodeAt(0));
    expect(JSON.parse(fixtureBytes.toString("utf8"))).toMatchObject({ jsonrpc: "2.0", params: { sessionId: "session_123" } });
  });

  describe("drift: the same check fails on a mutated copy", () => {
    it("fails when `sessionUpdate` is renamed", () => {
      const drifted = mutatedUpdate((update) => {
        update["session_update"] = update["sessionUpdate"];
        delete update["sessionUpdate"];
      });
      expect(() => expectFixtureBubble(drifted)).toThrow();
    });

    it("fails when the variant is renamed", () => {
      const drifted = mutatedUpdate((update) => {
        update["sessionUpdate"] = "openab_bubble";
      });
      expect(() => expectFixtureBubble(drifted)).toThrow();
    });

    it("fails when `content.text` moves to the update itself", () => {
      const drifted = mutatedUpdate((update) => {
        const content = update["content"] as { text: string };
        update["text"] = content.text;
        delete (content as Partial<typeof content>).text;
      });
      expect(() => expectFixtureBubble(drifted)).toThrow();
    });

    it("fails when `content.text` is renamed", () => {
      const drifted = mutatedUpdate((update) => {
        update["content"] = { type: "text", body: "your flight moved to 8pm\ngate B12" };
      });
      expect(() => expectFixtureBubble(drifted)).toThrow();
    });

    it("fails when `id` is renamed (the id is lost)", () => {
      const drifted = mutatedUpdate((update) => {
        update["bubbleId"] = update["id"];
        delete update["id"];
      });
      expect(() => expectFixtureBubble(drifted)).toThrow();
    });

    it("fails when the method changes", () => {
      const drifted = { ...(JSON.parse(fixtureBytes.toString("utf8")) as object), method: "session/notify" };
      expect(() => expectFixtureBubble(drifted)).toThrow();
    });
  });
});
