import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/**
 * Every `msg` literal passed to a logger call in src/ and operators/, and every exported
 * `*_LOG` / `*_WARNING` constant (src/ owns its messages; operators return data).
 */
function loggedMessages(): Set<string> {
  const call = /\.(?:trace|debug|info|warn|error|fatal)\(\s*(?:[\w.]+|\{[\s\S]*?\})\s*,\s*"([^"]+)"\s*,?\s*\)|\.(?:trace|debug|info|warn|error|fatal)\(\s*"([^"]+)"\s*\)/g;
  const found = new Set<string>();
  for (const file of [...sources(join(root, "src")), ...sources(join(root, "operators"))]) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(call)) found.add((match[1] ?? match[2]) as string);
    for (const match of text.matchAll(/export const \w+_(?:LOG|WARNING)\s*=\s*\n?\s*"([^"]+)"/g)) found.add(match[1] as string);
  }
  return found;
}

describe("docs/logging.md", () => {
  it("documents every log message the code emits", () => {
    const doc = readFileSync(join(root, "docs/logging.md"), "utf8");
    const messages = loggedMessages();
    expect(messages.size).toBeGreaterThan(5);
    for (const msg of messages) expect(doc, `msg "${msg}"`).toContain(`| \`${msg}\` |`);
  });
});
