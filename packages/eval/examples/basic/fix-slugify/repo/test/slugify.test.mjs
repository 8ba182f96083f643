import assert from "node:assert/strict";
import test from "node:test";
import { slugify } from "../src/slugify.mjs";

test("slugify replaces every space", () => {
  assert.equal(slugify("Hello Big World"), "hello-big-world");
});
