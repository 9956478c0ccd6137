import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/index.js";
import { configSchema } from "../../src/config/schema.js";
import { keysAt } from "../../src/config/shape.js";
import { TELEGRAM_ENV } from "../../src/config/sections/telegramEnv.js";
import { TELEGRAM_REACTION_EMOJI } from "../../src/platforms/telegram/reactionEmoji.js";
import { expectLinksResolve } from "../helpers/docPages.js";

// docs/platforms.md against the code: its configs load, its key table is the section's, its emoji
// list is the adapter's, its links resolve, and every line the Telegram adapter logs is in
// docs/logging.md (those test/docs/logging.test.ts cannot see: messages held in a field, or with
// escaped quotes).

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const doc = read("docs/platforms.md");
const token = "123456789:AAE-doc-test-token";

/** The ```toml blocks of the page, indented ones (inside a list item) included. */
function tomlBlocks(): string[] {
  return [...doc.matchAll(/^( *)```toml\n([\s\S]*?)^\1```/gm)].map((m) => (m[2] as string).replace(new RegExp(`^${m[1] as string}`, "gm"), ""));
}

/** The cells of the key table's row for `key`. */
function keyRow(key: string): string[] | undefined {
  const line = doc.split("\n").find((row) => row.startsWith(`| \`${key}\` | `));
  return line?.split(" | ").map((cell) => cell.replace(/^\| |\s*\|$/g, "").trim());
}

describe("docs/platforms.md", () => {
  it("the five steps' config is a polling bot for one user, the token masked by check-config", () => {
    const [minimal] = tomlBlocks();
    const config = parseConfigText(minimal ?? "", { env: {} });
    expect(config.telegram?.mode).toBe("polling");
    expect(config.telegram?.allowed_users).toEqual(["123456789"]);
    expect(config.agent.command).toBe("npx");
    expect(config.gateway).toBeUndefined();
  });

  it("every config on the page loads; the webhook example is a webhook", () => {
    const blocks = tomlBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const env = {
      TELEGRAM_BOT_TOKEN: token,
      TELEGRAM_SECRET_TOKEN: "s3cret_token",
      DISCORD_BOT_TOKEN: "MTIwMDAwMDAwMDAwMDAwMDAwMw.GkT3xq.the-secret-part",
      SLACK_BOT_TOKEN: "xoxb-1-2-the-secret-part",
      SLACK_APP_TOKEN: "xapp-1-A0123ABC-1-the-secret-part",
    };
    const configs = blocks.map((toml) => parseConfigText(toml, { env }));
    expect(configs.some((config) => config.telegram?.mode === "webhook" && config.telegram.webhook_url !== undefined)).toBe(true);
  });

  it("lists every [telegram] key, upstream's with their environment variables", () => {
    const keys = keysAt(configSchema, ["telegram"]);
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(keyRow(key), key).toBeDefined();
    for (const [key, variable] of Object.entries(TELEGRAM_ENV)) expect(keyRow(key)?.[2], key).toContain(variable);
  });

  it("lists upstream's keys first", () => {
    const keys = keysAt(configSchema, ["telegram"]);
    const rowOf = (key: string) => doc.indexOf(`| \`${key}\` | `);
    const lastUpstream = Math.max(...Object.keys(TELEGRAM_ENV).map(rowOf));
    for (const key of keys.filter((key) => !(key in TELEGRAM_ENV))) expect(rowOf(key), key).toBeGreaterThan(lastUpstream);
  });

  it("gives Telegram's reaction emoji as the adapter has them", () => {
    const list = /Telegram's list, as\s+grammY[^:]*: ([\s\S]*?)\.\n/.exec(doc)?.[1];
    expect(list?.split(/\s+/)).toEqual([...TELEGRAM_REACTION_EMOJI]);
  });

  it("names the grammY version package.json pins", () => {
    const pinned = (JSON.parse(read("package.json")) as { dependencies: Record<string, string> }).dependencies.grammy;
    expect(doc).toContain(`grammy@${pinned}`);
  });

  it("links only to files and headings that exist", () => {
    expectLinksResolve(doc, 5);
  });

  it("is linked from the README", () => {
    expect(read("README.md")).toContain("(docs/platforms.md)");
  });
});

describe("docs/logging.md: the Telegram adapter's lines", () => {
  const logging = read("docs/logging.md");
  const dir = new URL("../../src/platforms/telegram/", import.meta.url);
  const sources = readdirSync(dir).filter((name) => name.endsWith(".ts")).map((name) => readFileSync(new URL(name, dir), "utf8"));

  // Logger calls (quotes escaped inside allowed), and the lines of retried work given as `failed` / `recovered`.
  const logged = /\.(?:debug|info|warn|error)\(\s*\{[\s\S]*?\}\s*,\s*"((?:[^"\\]|\\.)+)"\s*\)/g;
  const episodes = /\b(?:failed|recovered): "([^"]+)"/g;
  const messages = new Set(sources.flatMap((text) => [...text.matchAll(logged), ...text.matchAll(episodes)].map((m) => (m[1] as string).replace(/\\"/g, '"'))));

  it("finds the adapter's lines", () => {
    expect(messages.size).toBeGreaterThan(15);
  });

  for (const msg of messages) {
    it(`documents \`${msg}\``, () => {
      expect(logging).toContain(`| \`${msg}\` |`);
    });
  }
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`. */
