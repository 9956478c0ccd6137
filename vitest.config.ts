import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Pure modules: operators, config, logging and wire vocabulary, every marble and property spec,
 * and the docs' example operators. No socket, process or dist/: `npm run test:unit` runs these
 * alone for the edit–test loop.
 */
const unit = [
  "test/operators/**/*.test.ts",
  "test/config/**/*.test.ts",
  "test/log/**/*.test.ts",
  "test/wire/**/*.test.ts",
  "test/architecture*.test.ts",
  "test/**/*.marble.test.ts",
  "test/**/*.property.test.ts",
  "docs/examples/**/*.test.ts",
];
/** Specs that weigh the heap with full collections: in a worker of their own, not in the shared unit graph. */
const heap = ["test/**/*.heap.test.ts"];
/** Load-shaped runs (thousands of agents, floods, fault runs of a minute): `npm run test:load`, after `npm test` in CI. */
const load = ["test/**/*.load.test.ts"];

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
    environment: "node",
    // Suites that spawn processes or sockets share two noisy cores: give hooks room, keep tests bounded.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Five files at a time on 2 cores: most suites wait on sockets, child processes and nats-server
    // rather than compute (two workers kept the CPU 90% busy out of 200%, four 136%; a fresh
    // clone's npm test took 5 min 44 s with four, 4 min 53 s with five, 4 min 38 s with six, where
    // timing-bound suites began to feel the load). TEST_WORKERS overrides it (docs/testing.md).
    maxWorkers: Number(process.env.TEST_WORKERS ?? 5),
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: unit,
          exclude: [...heap, ...load],
          // Pure specs share one module graph per worker: importing rxjs and the operators once,
          // not once per file, halves this project's time. None of them keeps global state.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Pure too, but each in a fresh worker: a full collection in the shared graph costs seconds.
          name: "heap",
          include: heap,
          exclude: load,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: [...unit, ...heap, ...load],
          // Builds dist/ once (incrementally), so CLI tests spawn the real `turnstream` binary.
          globalSetup: ["test/globalSetup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "load",
          include: load,
          globalSetup: ["test/globalSetup.ts"],
          // One load run at a time: each is sized to use the machine.
          maxWorkers: 1,
          testTimeout: 300_000,
        },
      },
    ],
  },
});
