import { describe, expect, it } from "vitest";
import type { BotApiFailure } from "../../../src/platforms/telegram/botApiFailure.js";
import { fallsBackToPlain } from "../../../src/platforms/telegram/richFallback.js";

const refused = (status: number): BotApiFailure => ({ kind: "refused", status, description: "Bad Request: x" });

describe("fallsBackToPlain: which failed sendRichMessage goes again as sendMessage", () => {
  it.each([400, 401, 403, 404, 413])("a %i refused the rich message: sent plain instead", (status) => expect(fallsBackToPlain(refused(status))).toBe(true));
  it.each([429, 500, 502])("a %i is not a refusal of this message: not sent plain", (status) => expect(fallsBackToPlain(refused(status))).toBe(false));
  it("no answer (it may have posted) or no connection (the plain one would fail too): not sent plain", () => {
    expect(fallsBackToPlain({ kind: "network", code: "timeout", connected: true })).toBe(false);
    expect(fallsBackToPlain({ kind: "network", code: "ECONNREFUSED", connected: false })).toBe(false);
  });
});
