import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root, with a trailing separator. */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Every `.ts` file under `dir`, recursively. */
export function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports (static `import … from`, `export … from`, and `import("…")`) of one file, as absolute .ts paths. */
export function relativeImports(path: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)"(\.{1,2}\/[^"]+)"/g)].map((match) => match[1] as string);
  return specifiers.map((specifier) => join(dirname(path), specifier.replace(/\.js$/, ".ts")));
}
