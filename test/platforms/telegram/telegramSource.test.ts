import { describe, expect, it } from "vitest";
import { isTelegramAddress, sourceAddress } from "../../../src/platforms/telegram/telegramSource.js";

describe("isTelegramAddress (reference §6.5, test_check_telegram_subnet)", () => {
  it.each(["149.154.160.0", "149.154.175.255", "91.108.4.0", "91.108.7.255", "::ffff:149.154.167.99"])("%s is Telegram's", (ip) => {
    expect(isTelegramAddress(ip)).toBe(true);
  });
  it.each(["149.154.159.255", "149.154.176.0", "91.108.3.255", "91.108.8.0", "unknown", "", "::1", "8.8.8.8", "149.154.160", "149.154.160.0.1", "149.154.160.256"])("%s is not", (ip) => {
    expect(isTelegramAddress(ip)).toBe(false);
  });
});

describe("sourceAddress", () => {
  it("reads CF-Connecting-IP, else X-Real-IP, else the first X-Forwarded-For hop, else the peer", () => {
    const all = { "cf-connecting-ip": "1.1.1.1", "x-real-ip": "2.2.2.2", "x-forwarded-for": "3.3.3.3, 4.4.4.4" };
    expect(sourceAddress(all, "5.5.5.5")).toBe("1.1.1.1");
    expect(sourceAddress({ "x-real-ip": "2.2.2.2", "x-forwarded-for": "3.3.3.3" }, "5.5.5.5")).toBe("2.2.2.2");
    expect(sourceAddress({ "x-forwarded-for": " 3.3.3.3 , 4.4.4.4" }, "5.5.5.5")).toBe("3.3.3.3");
    expect(sourceAddress({}, "5.5.5.5")).toBe("5.5.5.5");
    expect(sourceAddress({ "x-real-ip": "" }, undefined)).toBe("");
  });
});
