import { execFile } from "node:child_process";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { listLabs } from "../src/labs.ts";
import type { LabVerdict } from "../src/verify/check-line.ts";
import { runVerifyCli } from "../src/verify/verify-cli.ts";
import { verifyLessons } from "../src/verify/verify-lessons.ts";
import { copyFixture } from "./fixture-repo.ts";

const run = promisify(execFile);
const SOUND = "01-sound";

let repo: string;
let verdicts: LabVerdict[];

/** A copy of the sound lab under a new number, with one file rewritten by `edit`. */
async function variant(
  folder: string,
  file: string,
  edit: (text: string) => string,
): Promise<void> {
  const [id = "", ...slug] = folder.split("-");
  const dir = path.join(repo, "labs", folder);
  await cp(path.join(repo, "labs", SOUND), dir, { recursive: true });
  const manifestFile = path.join(dir, "lesson.json");
  const manifest = (await readFile(manifestFile, "utf8"))
    .replace('"id": "01"', `"id": "${id}"`)
    .replace('"slug": "sound"', `"slug": "${slug.join("-")}"`);
  await writeFile(manifestFile, manifest);
  for (const side of ["starter", "solution"]) {
    const source = path.join(dir, side, "src", "index.ts");
    await writeFile(source, (await readFile(source, "utf8")).replace("lab-01", `lab-${id}`));
  }
  const target = path.join(dir, file);
  await writeFile(target, edit(await readFile(target, "utf8")));
}

function verdict(id: string): LabVerdict {
  const found = verdicts.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no verdict for lab ${id}`);
  return found;
}

function failures(id: string): string[] {
  return verdict(id)
    .checks.filter((check) => !check.ok)
    .map((check) => check.text);
}

beforeAll(async () => {
  const { root, dir } = await copyFixture("verify-repo");
  repo = dir;
  await writeFile(path.join(repo, ".gitignore"), "node_modules\n.lab-kit/\n");
  await variant("02-passes-declared", "lesson.json", (text) =>
    text.replace(
      '"failing": ["total > adds every value"]',
      '"failing": ["total > adds every value", "label > prefixes a hash"]',
    ),
  );
  await variant("03-syntax-error", "starter/src/index.ts", (text) =>
    text.replace("void values;", "void values +;"),
  );
  await variant("04-outside-region", "starter/src/index.ts", (text) =>
    text.replace("/** A name with a hash in front. */", "/** A name, hashed. */"),
  );
  await variant("05-missing-text", "lesson.json", (text) =>
    text.replace('"find": "for (const value of values)', '"find": "for (const item of values)'),
  );
  await variant("06-breaks-nothing", "lesson.json", (text) =>
    text.replace(
      '"find": "for (const value of values) sum += value;",\n      "replace": "for (const value of values.slice(1)) sum += value;"',
      '"find": "let sum = 0;",\n      "replace": "let sum = 0; // same"',
    ),
  );
  await variant("07-learner-done", "lesson.json", (text) => text);
  await variant("09-tests-tampered", "lesson.json", (text) => text);
  await variant("08-unknown-capstone-proof", "lesson.json", (text) =>
    text.replace('"capstone:adds every value"', '"capstone:adds nothing"'),
  );
  const git = (...args: string[]) => run("git", args, { cwd: repo });
  await git("init", "-q");
  await git("add", ".");
  await git(
    "-c",
    "user.name=fixture",
    "-c",
    "user.email=fixture@example.com",
    "commit",
    "-qm",
    "fixture",
  );
  // The learner completes the exercise after the commit: the working tree differs from HEAD.
  const done = path.join(repo, "labs", "07-learner-done");
  const solved = await readFile(path.join(done, "solution", "src", "index.ts"), "utf8");
  await writeFile(path.join(done, "starter", "src", "index.ts"), solved);
  // A learner edits the shared tests after the commit: the report must say so.
  const tamperedTest = path.join(repo, "labs", "09-tests-tampered", "tests", "lab.test.ts");
  await writeFile(tamperedTest, `${await readFile(tamperedTest, "utf8")}// weakened\n`);
  verdicts = await verifyLessons(repo, await listLabs(repo), {
    seed: 7,
    run: { hangGraceMs: 1_000 },
  });
  return () => rm(root, { recursive: true, force: true });
}, 120_000);

describe("verifyLessons", () => {
  it("finds a sound lab sound, one line per check", () => {
    expect(failures("01")).toEqual([]);
    expect(verdict("01").checks.length).toBeGreaterThanOrEqual(9);
  });

  it("fails a starter that passes one of its declared failing tests, naming the test", () => {
    expect(failures("02")).toEqual([
      expect.stringContaining('通过了声明应失败的测试 "label > prefixes a hash"'),
    ]);
  });

  it("fails a starter with a syntax error as a load error, naming the test file", () => {
    const problems = failures("03");
    expect(problems.some((text) => text.includes("无法加载 tests/lab.test.ts（加载错误"))).toBe(
      true,
    );
  });

  it("fails a starter that differs outside the exercise regions, naming file and line", () => {
    expect(failures("04")).toEqual([
      expect.stringContaining("src/index.ts 在练习区域之外不同：starter 第 10 行"),
    ]);
  });

  it("fails a mutation whose text is missing, naming the file", () => {
    expect(failures("05")).toEqual([
      expect.stringContaining(
        "变异门 skip-first（漏掉第一个数）：在 solution/src/index.ts 中找不到要替换的文本",
      ),
    ]);
  });

  it("fails a mutation that breaks none of its tests, naming the test still passing", () => {
    expect(failures("06")).toEqual([
      expect.stringContaining(
        '变异门 skip-first（漏掉第一个数）：测试 "total > adds every value" 仍然通过',
      ),
    ]);
  });

  it("keeps a lesson sound when the learner completes the starter, and says it is complete", () => {
    expect(failures("07")).toEqual([]);
    expect(verdict("07").learner.join("\n")).toContain("本课已完成");
  });

  it("accepts a rubric proof naming a capstone test and fails one naming no such test", () => {
    expect(failures("01")).toEqual([]);
    expect(failures("08")).toEqual([
      expect.stringContaining('rubric.1.proof 指向不存在的测试或变异门 "capstone:adds nothing"'),
    ]);
  });

  it("tells the learner when the lab's tests differ from the committed ones", () => {
    expect(verdict("09").learner.join("\n")).toContain(
      "labs/09-tests-tampered/tests/ 与提交的版本不同（已修改 lab.test.ts）",
    );
    expect(verdict("01").learner.join("\n")).not.toContain("与提交的版本不同");
  });

  it("reports the next hint for the first failing test of an untouched starter", () => {
    expect(verdict("01").learner.join("\n")).toContain("循环里要把每个数加到 sum 上。");
  });
});

describe("runVerifyCli", () => {
  it("exits 2 for an unknown lesson and lists the lessons that exist", async () => {
    let err = "";
    const code = await runVerifyCli(repo, ["99"], {
      out: () => undefined,
      err: (text) => (err += text),
    });
    expect(code).toBe(2);
    expect(err).toContain("01  sound");
    expect(err).toContain("07  learner-done");
  });

  it("exits 1 when a check fails and accepts a literal -- before the lesson", async () => {
    let out = "";
    const code = await runVerifyCli(repo, ["--", "04", "--seed", "3"], {
      out: (text) => (out += text),
      err: () => undefined,
    });
    expect(code).toBe(1);
    expect(out).toContain("第 04 课");
  }, 60_000);
});
