import assert from "node:assert/strict";
import { test } from "node:test";
import { paginate } from "../src/index.ts";

const letters = ["a", "b", "c", "d", "e", "f", "g"];

test("refuses a page that does not exist", () => {
  assert.throws(() => paginate(letters, 4, 3), RangeError);
  assert.throws(() => paginate(letters, 0, 3), RangeError);
});

test("refuses perPage below 1", () => {
  assert.throws(() => paginate(letters, 1, 0), RangeError);
});
