import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Docs examples import the package by name, as a user would; resolve it to the sources.
    alias: [
      { find: /^turnstream\/operators$/, replacement: here("./operators/index.ts") },
      { find: /^turnstream\/testing$/, replacement: here("./src/testing/index.ts") },
      { find: /^turnstream$/, replacement: here("./src/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "docs/examples/**/*.test.ts"],
    environment: "node",
    // Builds dist/ once, so CLI tests spawn the real `turnstream` binary.
    globalSetup: ["test/globalSetup.ts"],
    // Suites that spawn processes or sockets share two noisy cores: give hooks room, keep tests bounded.
    testTimeout: 20_000,
    // Two files at a time even on 2 cores (vitest would take one): most suites wait on sockets,
    // child processes and nats-server rather than compute, so the suite takes ~7 min, not ~13.
    maxWorkers: 2,
    hookTimeout: 30_000,
  },
});
