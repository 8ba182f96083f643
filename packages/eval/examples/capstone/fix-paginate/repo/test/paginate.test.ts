import assert from "node:assert/strict";
import { test } from "node:test";
import { paginate } from "../src/index.ts";

const letters = ["a", "b", "c", "d", "e", "f", "g"];

test("splits a list into pages of perPage items", () => {
  assert.deepEqual(paginate(letters.slice(0, 6), 2, 3), {
    items: ["d", "e", "f"],
    page: 2,
    totalPages: 2,
    hasNext: false,
  });
});

test("the last page may be shorter than perPage", () => {
  assert.deepEqual(paginate(letters, 3, 3), {
    items: ["g"],
    page: 3,
    totalPages: 3,
    hasNext: false,
  });
});

test("a page before a short last page has a next page", () => {
  assert.equal(paginate(letters, 2, 3).hasNext, true);
});

test("an empty list has no pages, and its page 1 is empty", () => {
  assert.deepEqual(paginate([], 1, 3), { items: [], page: 1, totalPages: 0, hasNext: false });
});
