import { expect } from "vitest";
import type { TestScheduler } from "rxjs/testing";
import { createTestScheduler } from "../../src/testing/index.js";

/** A fresh `TestScheduler` bound to vitest's `expect`; create one per test. */
export function testScheduler(): TestScheduler {
  return createTestScheduler(expect);
}
