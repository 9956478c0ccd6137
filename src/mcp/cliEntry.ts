import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(import.meta.url);

/**
 * The built CLI (`dist/src/cli/main.js`) the stdio entry runs as `node <it> mcp`: beside this
 * module once built; from the sources (the test suite runs them), the build's.
 */
export const cliMainPath = here.endsWith(".ts") ? resolve(dirname(here), "../../dist/src/cli/main.js") : resolve(dirname(here), "../cli/main.js");
