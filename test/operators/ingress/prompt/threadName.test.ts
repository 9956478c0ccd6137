import { describe, expect, it } from "vitest";
import { shortenThreadName, shortGithubLinks } from "../../../../operators/ingress/prompt/threadName.js";
import { expectLinear } from "../../../helpers/linearTime.js";

// §6.4 (computed vectors of format::shorten_thread_name)
describe("shortenThreadName (§2.5)", () => {
  it.each([
    ["hello", "hello"],
    ["@(role) review https://github.com/openabdev/openab/pull/785 please", "review openabdev/openab#785 please"],
    ["Please summarize yesterday's merged PRs and post them here", "Please summarize yesterday's merged PRs ..."],
    ["  spaced  ", "spaced"],
    ["", ""],
  ])("%j → %j", (prompt, name) => {
    expect(shortenThreadName(prompt)).toBe(name);
  });

  it("removes @(user) too, and cuts at 40 code points (an emoji is one)", () => {
    expect(shortenThreadName("@(user) hi")).toBe("hi");
    const name = shortenThreadName(`${"😀".repeat(41)}`);
    expect(name).toBe(`${"😀".repeat(40)}...`);
  });

  it("exactly 40 characters are kept whole", () => {
    expect(shortenThreadName("a".repeat(40))).toBe("a".repeat(40));
  });
});

describe("shortGithubLinks", () => {
  it.each([
    ["see http://github.com/a/b/issues/12 and https://github.com/c/d/pull/3", "see a/b#12 and c/d#3"],
    ["https://github.com/a/b/tree/main", "https://github.com/a/b/tree/main"],
    ["https://github.com/a/b/pull/", "https://github.com/a/b/pull/"],
    ["github.com/a/b/pull/1", "github.com/a/b/pull/1"],
    ["https://github.com/a/b/pull/1x", "a/b#1x"],
    ["https://github.com//b/pull/1", "https://github.com//b/pull/1"],
  ])("%j → %j", (text, expected) => {
    expect(shortGithubLinks(text)).toBe(expected);
  });

  it("is linear on a long run of near-links", () => {
    const nearLinks = (count: number) => "https://github.com/a/".repeat(count);
    expect(shortGithubLinks(nearLinks(50_000))).toBe(nearLinks(50_000));
    expectLinear(nearLinks, shortGithubLinks, 50_000);
  });
});
