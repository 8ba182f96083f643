import assert from "node:assert/strict";
import test from "node:test";
import { sum } from "../src/sum.js";

test("sum adds two numbers", () => {
  assert.equal(sum(2, 3), 5);
});

test("adding zero keeps the number", () => {
  assert.equal(sum(7, 0), 7);
});
