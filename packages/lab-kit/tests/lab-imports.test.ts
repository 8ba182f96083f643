import path from "node:path";
import { describe, expect, it } from "vitest";
import { isAllowedLabImport } from "../src/run/lab-imports.ts";

const testsDir = path.join(path.sep, "repo", "labs", "05-x", "tests");
const importer = path.join(testsDir, "lab.test.ts");

describe("isAllowedLabImport", () => {
  it.each([
    "vitest",
    "@lab",
    "@coding-agent/agent-core",
    "@coding-agent/agent-core/testing",
    "@coding-agent/tools",
    "node:path",
    "./helpers.ts",
  ])("allows %s", (specifier) => {
    expect(isAllowedLabImport(specifier, importer, testsDir)).toBe(true);
  });

  it.each([
    "../solution/src/index.ts",
    "../starter/src/index.ts",
    "@coding-agent/agent-core/src/agent-loop.ts",
    "zod",
    "node:no-such-module",
    "path",
    "/repo/labs/05-x/solution/src/index.ts",
  ])("rejects %s", (specifier) => {
    expect(isAllowedLabImport(specifier, importer, testsDir)).toBe(false);
  });
});
