import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/index.js";
import { expectLinksResolve } from "../helpers/docPages.js";

// docs/proactive.md against the code: its configs load, its worked example is the tested file,
// the tests it names exist, and its links resolve.

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const doc = read("docs/proactive.md");

const env = {
  TELEGRAM_BOT_TOKEN: "123456789:AAE-doc-test-token",
  CI_WEBHOOK_SECRET: "0123456789abcdef0123456789abcdef",
};

/** What a block names but leaves out, so it loads on its own: the platform sections its jobs and endpoints speak to. */
const platformSections: Record<string, string> = {
  telegram: "[telegram]\n",
  discord: '[discord]\nbot_token = "MTIwMDAwMDAwMDAwMDAwMDAwMw.GkT3xq.the-secret-part"\n',
  slack: '[slack]\nbot_token = "xoxb-1-2-the-secret-part"\napp_token = "xapp-1-A0123ABC-1-the-secret-part"\n',
};

function loaded(toml: string) {
  const needed = Object.entries(platformSections).filter(([name]) => toml.includes(`platform = "${name}"`) && !toml.includes(`[${name}]`));
  return parseConfigText(`${toml}\n${needed.map(([, section]) => section).join("\n")}`, { env });
}

const tomlBlocks = () => [...doc.matchAll(/^```toml\n([\s\S]*?)^```/gm)].map((m) => m[1] as string);

describe("docs/proactive.md", () => {
  it("shows docs/examples/nightlyDigest.toml verbatim, the file its test reads", () => {
    expect(doc).toContain(read("docs/examples/nightlyDigest.toml").trimEnd());
  });

  it("every config on the page loads: a [cron] job, a webhook endpoint, the digest", () => {
    const configs = tomlBlocks().map(loaded);
    expect(configs).toHaveLength(3);
    const [cron, webhooks, digest] = configs;
    expect(cron?.cron.jobs[0]).toMatchObject({ schedule: "0 9 * * 1-5", platform: "discord", proactive: false });
    expect(cron?.cron.catch_up).toBe("none");
    expect(webhooks?.webhooks.endpoints[0]).toMatchObject({ name: "ci", auth: "hmac", signature_header: "X-Hub-Signature-256", event_id_pointer: "/build/id" });
    expect(digest?.cron.jobs[0]?.proactive).toBe(true);
  });

  it("names tests that exist", () => {
    const named = [...new Set(doc.match(/(?:test|docs\/examples)\/[\w/.-]+\.test\.ts/g) ?? [])];
    expect(named.length).toBeGreaterThanOrEqual(4);
    for (const path of named) expect(existsSync(new URL(`../../${path}`, import.meta.url)), path).toBe(true);
  });

  it("links only to files and headings that exist", () => {
    expectLinksResolve(doc, 10);
  });

  it("is linked from the README, the architecture page, scaling.md, config-reference.md and migrating-from-openab.md", () => {
    expect(read("README.md")).toContain("(docs/proactive.md)");
    for (const path of ["docs/architecture.md", "docs/scaling.md", "docs/config-reference.md", "docs/migrating-from-openab.md"]) expect(read(path), path).toContain("(proactive.md");
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`. */
