import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { relativeImports, repoRoot, sources } from "./helpers/sourceTree.js";

/**
 * The layers of docs/architecture.md ("Layers"), bottom first: a folder imports only folders of
 * a lower layer, never one of its own layer or above. `src/index.ts` (the package's door) and
 * `src/version.ts` (a constant) sit outside the folders and are not held to this.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["operators"],
  ["src/config", "src/failure", "src/wire"],
  ["src/log"],
  ["src/bus", "src/metrics", "src/scale", "src/stt", "src/webhooks"],
  ["src/pipeline", "src/state"],
  ["src/acp", "src/cron", "src/platforms"],
  ["src/gateway"],
  ["src/agent", "src/edge"],
  ["src/mcp"],
  ["src/turn"],
  ["src/worker"],
  ["src/broker"],
  ["src/demo", "src/devgateway", "src/testing"],
  ["src/bubbletest"],
  ["src/cli"],
];

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));

/** The layered folder a file belongs to (`operators`, or `src/<folder>`), or undefined for a file at the top of src/. */
function folderOf(path: string): string | undefined {
  const [top, second, third] = relative(repoRoot, path).split(sep);
  if (top === "operators") return "operators";
  return top === "src" && third !== undefined ? `${top}/${second}` : undefined;
}

/** Every import of one layered folder by another, as `from → to (file → file)`, that points at the same layer or up. */
function upwardImports(files: readonly string[], read: (path: string) => string = (path) => readFileSync(path, "utf8")): string[] {
  const found: string[] = [];
  for (const path of files) {
    const from = folderOf(path);
    if (from === undefined) continue;
    for (const target of relativeImports(path, read(path))) {
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      if ((layerOf.get(to) ?? Number.POSITIVE_INFINITY) >= (layerOf.get(from) ?? Number.NEGATIVE_INFINITY)) {
        found.push(`${from} → ${to} (${relative(repoRoot, path)} → ${relative(repoRoot, target)})`);
      }
    }
  }
  return found;
}

describe("no arrow back up", () => {
  const files = ["src", "operators"].flatMap((dir) => sources(join(repoRoot, dir)));

  it("every folder of src/ has its layer, and no layer names a folder that is gone", () => {
    const folders = new Set(files.map(folderOf).filter((folder): folder is string => folder !== undefined));
    expect([...folders].filter((folder) => !layerOf.has(folder)).sort()).toEqual([]);
    expect([...layerOf.keys()].filter((folder) => !folders.has(folder)).sort()).toEqual([]);
  });

  it("a folder imports only folders of a lower layer", () => {
    expect(upwardImports(files)).toEqual([]);
  });

  it("catches an import of a folder above and one of the same layer, and lets a lower one and the top of src/ pass", () => {
    const file = (path: string) => join(repoRoot, ...path.split("/"));
    const texts = new Map([
      [file("src/turn/a.ts"), 'import { Worker } from "../worker/worker.js";\nimport { x } from "../acp/y.js";\nimport { v } from "../version.js";'],
      [file("src/bus/b.ts"), 'export { m } from "../metrics/m.js";\nconst l = await import("../log/logger.js");'],
    ]);
    expect(upwardImports([...texts.keys()], (path) => texts.get(path) ?? "")).toEqual([
      "src/turn → src/worker (src/turn/a.ts → src/worker/worker.ts)",
      "src/bus → src/metrics (src/bus/b.ts → src/metrics/m.ts)",
    ]);
  });
});
