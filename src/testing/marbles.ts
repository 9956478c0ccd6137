import { TestScheduler } from "rxjs/testing";

/** The part of a test framework's `expect` that marble assertions need (vitest, jest and chai-style wrappers fit). */
export type DeepEqualExpect = (actual: unknown) => { toEqual(expected: unknown): void };

/**
 * A `TestScheduler` whose assertions go through the given `expect`, so a failing marble shows the
 * test framework's usual diff. Run each case inside `scheduler.run(helpers => …)`: there one frame
 * is one virtual millisecond, and every operator that reads time from RxJS's schedulers
 * (`delay`, `timeout`, `scheduler.now()`, …) runs on virtual time.
 *
 * ```ts
 * import { expect } from "vitest";
 * const scheduler = createTestScheduler(expect);
 * scheduler.run(({ cold, expectObservable }) => {
 *   expectObservable(cold("-a-b|").pipe(delay(3))).toBe("----a-(b|)");
 * });
 * ```
 */
export function createTestScheduler(expect: DeepEqualExpect): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
}
