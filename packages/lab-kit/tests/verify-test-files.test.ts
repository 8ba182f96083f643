import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanTestFolder } from "../src/verify/test-files.ts";

let labDir: string;

const SPELLINGS = [
  'it.skip("a", () => {});',
  'test.only("b", () => {});',
  'describe.todo("c");',
  'it.skipIf(process.env.CI)("d", () => {});',
  'test.runIf(false)("e", () => {});',
  'it.fails("f", () => {});',
  'it.concurrent.only("g", () => {});',
  'suite.skip("h", () => {});',
  'it("i", (context) => context.skip());',
  'it . only ("j", () => {});',
];

beforeAll(async () => {
  labDir = await mkdtemp(path.join(os.tmpdir(), "lab-kit-test-files-"));
  await mkdir(path.join(labDir, "tests", "helpers"), { recursive: true });
  await writeFile(path.join(labDir, "tests", "lab.test.ts"), `${SPELLINGS.join("\n")}\n`);
  await writeFile(
    path.join(labDir, "tests", "clean.test.ts"),
    '// it.skip( in a comment is fine\nit("k", () => { expect(skipped).toBe(0); });\n',
  );
  await writeFile(path.join(labDir, "tests", "helpers", "fake.ts"), "export const x = 1;\n");
  await writeFile(path.join(labDir, "tests", "x.spec.ts"), "");
  await writeFile(path.join(labDir, "tests", "y.test.js"), "");
});

afterAll(() => rm(labDir, { recursive: true, force: true }));

describe("scanTestFolder", () => {
  it("lists the test files the lab config runs", async () => {
    expect((await scanTestFolder(labDir)).testFiles).toEqual([
      "tests/clean.test.ts",
      "tests/lab.test.ts",
    ]);
  });

  it("names every skip/only/todo/fails spelling, line by line, and every file never run", async () => {
    expect((await scanTestFolder(labDir)).problems).toEqual([
      "tests/x.spec.ts 不会被运行：实验只运行 tests/**/*.test.ts",
      "tests/y.test.js 不会被运行：实验只运行 tests/**/*.test.ts",
      ...["skip", "only", "todo", "skipIf", "runIf", "fails", "only", "skip", "skip", "only"].map(
        (modifier, index) =>
          `tests/lab.test.ts 第 ${index + 1} 行使用了 .${modifier}：实验测试不允许 skip、only、todo、fails`,
      ),
    ]);
  });
});
