/**
 * What `node --test --test-reporter=tap` printed for {@link MIXED_TESTS} (Node 20), as
 * captured: only durations, the folder and the stack traces were shortened.
 */
export const MIXED_TAP = `TAP version 13
# Subtest: adds
ok 1 - adds
  ---
  duration_ms: 1.5
  ...
# Subtest: broken sum
not ok 2 - broken sum
  ---
  duration_ms: 1.5
  location: '/repo/a.test.mjs:4:1'
  failureType: 'testCodeFailure'
  error: |-
    sum is wrong
    
    2 !== 3
    
  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 3
  actual: 2
  operator: 'strictEqual'
  ...
# Subtest: later
ok 3 - later # SKIP not yet
  ---
  duration_ms: 1.5
  ...
# Subtest: idea
not ok 4 - idea # TODO
  ---
  duration_ms: 1.5
  location: '/repo/a.test.mjs:6:1'
  failureType: 'testCodeFailure'
  error: 'not done'
  code: 'ERR_TEST_FAILURE'
  ...
# Subtest: idea that works
ok 5 - idea that works # TODO
  ---
  duration_ms: 1.5
  ...
# Subtest: math
    # Subtest: multiplies
    ok 1 - multiplies
      ---
      duration_ms: 1.5
      ...
    # Subtest: divides
    not ok 2 - divides
      ---
      duration_ms: 1.5
      location: '/repo/a.test.mjs:10:3'
      failureType: 'testCodeFailure'
      error: |-
        line one
        line two
      code: 'ERR_TEST_FAILURE'
      ...
    # Subtest: inner
        # Subtest: deep
        not ok 1 - deep
          ---
          duration_ms: 1.5
          location: '/repo/a.test.mjs:11:29'
          failureType: 'testCodeFailure'
          error: |-
            The expression evaluated to a falsy value:
            
              assert.ok(false)
            
          code: 'ERR_ASSERTION'
          name: 'AssertionError'
          expected: true
          actual: false
          operator: '=='
          ...
        1..1
    not ok 3 - inner
      ---
      duration_ms: 1.5
      type: 'suite'
      location: '/repo/a.test.mjs:11:3'
      failureType: 'subtestsFailed'
      error: '1 subtest failed'
      code: 'ERR_TEST_FAILURE'
      ...
    1..3
not ok 6 - math
  ---
  duration_ms: 1.5
  type: 'suite'
  location: '/repo/a.test.mjs:8:1'
  failureType: 'subtestsFailed'
  error: '2 subtests failed'
  code: 'ERR_TEST_FAILURE'
  ...
# Subtest: parent
    # Subtest: child
    ok 1 - child
      ---
      duration_ms: 1.5
      ...
    1..1
ok 7 - parent
  ---
  duration_ms: 1.5
  ...
# Subtest: slow
not ok 8 - slow
  ---
  duration_ms: 1.5
  location: '/repo/a.test.mjs:14:1'
  failureType: 'testTimeoutFailure'
  error: 'test timed out after 50ms'
  code: 'ERR_TEST_FAILURE'
  ...
1..8
# tests 11
# suites 2
# pass 4
# fail 3
# cancelled 1
# skipped 1
# todo 2
# duration_ms 2149.680552
`;

/**
 * A `node:test` file with one of each: passing, failing (one message over several lines),
 * skipped, todo that fails and todo that passes, suites nested two deep, a test with a
 * subtest, and a test cancelled by its own timeout.
 */
export const MIXED_TESTS = `import { describe, test } from "node:test";
import assert from "node:assert/strict";
test("adds", () => assert.equal(1 + 1, 2));
test("broken sum", () => assert.equal(1 + 1, 3, "sum is wrong"));
test("later", { skip: "not yet" }, () => {});
test("idea", { todo: true }, () => { throw new Error("not done"); });
test("idea that works", { todo: true }, () => {});
describe("math", () => {
  test("multiplies", () => assert.equal(2 * 3, 6));
  test("divides", () => { throw new Error("line one\\nline two"); });
  describe("inner", () => { test("deep", () => assert.ok(false)); });
});
test("parent", async (t) => { await t.test("child", () => {}); });
test("slow", { timeout: 50 }, () => new Promise((r) => setTimeout(r, 500)));
`;

/** What node's own summary says of {@link MIXED_TESTS}: skipped counts its todo tests too. */
export const MIXED_COUNTS = { passed: 4, failed: 4, skipped: 3 };

/** Every failure of {@link MIXED_TESTS}, named after its suites, with its whole message. */
export const MIXED_FAILURES = [
  { name: "broken sum", message: "sum is wrong\n\n2 !== 3" },
  { name: "math > divides", message: "line one\nline two" },
  {
    name: "math > inner > deep",
    message: "The expression evaluated to a falsy value:\n\n  assert.ok(false)",
  },
  { name: "slow", message: "test timed out after 50ms" },
];
