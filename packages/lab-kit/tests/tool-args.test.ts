import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseLessonArgs, parseLessonsArgs } from "../src/learner/cli-args.ts";
import { runNewLessonCli } from "../src/scaffold/scaffold-lesson.ts";
import { EXIT_CODES } from "../src/tool-output.ts";
import { runVerifyCli } from "../src/verify/verify-cli.ts";

// Usage errors are found before any lab is read or run, so the fixture is only listed.
const REPO = path.join(import.meta.dirname, "fixtures", "verify-repo");

async function verifyCli(args: string[]) {
  let out = "";
  let err = "";
  const code = await runVerifyCli(REPO, args, {
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}

describe("every course tool explains a bad command line the same way", () => {
  it.each([
    ["verify:lesson", async () => (await verifyCli(["01", "--bogus"])).err],
    [
      "new:lesson",
      async () => {
        let err = "";
        await runNewLessonCli(REPO, ["--bogus", "12", "x", "标题"], {
          out: () => undefined,
          err: (text) => (err += text),
        });
        return err;
      },
    ],
    ["lessons", async () => (parseLessonsArgs(["--bogus"]) as { message: string }).message],
    [
      "lesson",
      async () => (parseLessonArgs(["hint", "01", "--bogus"]) as { message: string }).message,
    ],
  ])("%s names the unknown option in Chinese", async (_tool, run) => {
    const message = await run();
    expect(message).toContain("不认识的选项：--bogus。");
    expect(message).not.toMatch(/Unknown option/);
  });
});

describe("verify:lesson command line", () => {
  it.each([
    [["01", "--seed"], "选项 --seed 需要一个值"],
    [["01", "--seed", "x"], "--seed 需要一个非负整数"],
    [["01", "--seed=-1"], "--seed 需要一个非负整数"],
    [["01", "--all=yes"], "选项 --all 不接受值"],
    [[], "请给出课号，或用 --all"],
    [["99"], "没有第 99 课"],
  ])("exits 2 for %j: %s, with the usage and the lessons that exist", async (args, problem) => {
    const { code, err, out } = await verifyCli(args);
    expect(code).toBe(EXIT_CODES.usage);
    expect(err).toContain(problem);
    expect(err).toContain("用法：pnpm verify:lesson");
    expect(err).toContain("01  sound");
    expect(out).toBe("");
  });
});

describe("new:lesson command line", () => {
  it("exits 2 for an unknown option and writes nothing", async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "lab-kit-new-lesson-"));
    try {
      let err = "";
      const code = await runNewLessonCli(root, ["12", "tool-registry", "工具", "--force"], {
        out: () => undefined,
        err: (text) => (err += text),
      });
      expect(code).toBe(EXIT_CODES.usage);
      expect(err).toContain("不认识的选项：--force。\n用法：pnpm new:lesson");
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
