import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Compiles the package (incrementally) so process-level tests run the same `dist/` a user installs. */
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
}
