import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { listLabs } from "../src/labs.ts";
import { formatVerdict, type LabVerdict } from "../src/verify/check-line.ts";
import { sharedKey, verdictKey } from "../src/verify/verdict-cache.ts";
import { runVerifyCli } from "../src/verify/verify-cli.ts";
import { verifyLessons } from "../src/verify/verify-lessons.ts";
import { buildVerifyRepo, type Edit, replace, verdictsOf, verifyAll } from "./verify-fixture.ts";

const OTHER_TEST = "../../packages/capstone/tests/other.test.ts";

/** Rewrites the lesson's manifest through its parsed form. */
function manifest(change: (data: Record<string, unknown>) => void): Edit {
  return {
    file: "lesson.json",
    edit: (text) => {
      const data = JSON.parse(text) as Record<string, unknown>;
      change(data);
      return `${JSON.stringify(data, null, 2)}\n`;
    },
  };
}

let repo: string;
let verdicts: LabVerdict[];
const failures = (id: string) => verdictsOf(verdicts).failures(id);

beforeAll(async () => {
  const built = await buildVerifyRepo("verify-references", [
    {
      folder: "02-capstone-file-missing",
      edits: [
        manifest((data) => {
          data.capstone = {
            package: "@fixture/capstone",
            files: ["packages/capstone/src/sum.ts", "packages/capstone/src/product.ts"],
            tests: ["packages/capstone/tests/sum.test.ts"],
          };
        }),
      ],
    },
    {
      folder: "03-capstone-test-unrelated",
      edits: [
        {
          file: OTHER_TEST,
          edit: () =>
            'import { expect, it } from "vitest";\n\nit("adds two", () => {\n  expect(1 + 1).toBe(2);\n});\n',
        },
        manifest((data) => {
          data.capstone = {
            package: "@fixture/capstone",
            files: ["packages/capstone/src/sum.ts"],
            tests: ["packages/capstone/tests/sum.test.ts", "packages/capstone/tests/other.test.ts"],
          };
        }),
      ],
    },
    {
      folder: "04-hint-on-passing-test",
      edits: [
        replace(
          "lesson.json",
          '"test": "total > adds every value", "text"',
          '"test": "label > prefixes a hash", "text"',
        ),
      ],
    },
    {
      folder: "06-readme-disagrees",
      edits: [replace("README.md", "`gate:skip-first`", "`gate:skip-last`")],
    },
    {
      folder: "07-readme-without-rubric",
      edits: [replace("README.md", "## 验收 Rubric", "## 验收")],
    },
  ]);
  repo = built.repo;
  // With the cache on: sound verdicts are stored, for the cache tests below.
  verdicts = await verifyAll(repo, { cache: true });
  return built.cleanup;
}, 600_000);

describe("verify:lesson checks what a lesson points at", () => {
  it("finds the sound lab's README rubric, capstone link and hints in order", () => {
    expect(failures("01")).toEqual([]);
    const texts = verdictsOf(verdicts)
      .verdict("01")
      .checks.map((check) => check.text);
    expect(texts).toContain("README 验收 Rubric 与 lesson.json 的 rubric 一致");
    expect(texts).toContain(
      "提示与 Rubric 引用的测试和变异门都存在，提示都挂在 starter 失败的测试上",
    );
  });

  it("fails a capstone file that does not exist", () => {
    expect(failures("02")).toEqual([
      "总项目测试（@fixture/capstone）：capstone.files 中的 packages/capstone/src/product.ts 不存在",
    ]);
  });

  it("fails a capstone test that imports none of the capstone files", () => {
    expect(failures("03")).toEqual([
      "总项目测试（@fixture/capstone）：packages/capstone/tests/other.test.ts 没有导入 capstone.files 中的任何模块（直接导入，或经包入口转出）：它证明不了这一课的增量",
    ]);
  });

  it("fails a hint whose test the starter does not fail", () => {
    expect(failures("04")).toEqual([
      '引用检查：hints.1.test "label > prefixes a hash" 不在 starter.failing 中：学习者不会在这个测试上失败，永远看不到这条提示',
    ]);
  });

  it("fails a README rubric table that disagrees with lesson.json", () => {
    expect(failures("06")).toEqual([
      'README 验收 Rubric：表格第 1 行的证明 "gate:skip-last" 不在 lesson.json 的 rubric 中；另有 1 处问题',
    ]);
  });

  it("fails a README without its rubric table", () => {
    expect(failures("07")).toEqual([
      "README 验收 Rubric：找不到“## 验收 Rubric”下带“证明”列的表格",
    ]);
  });

  it("fails both folders of a duplicate lesson number, for verify:lesson 05 and --all, exit 1, no stack trace", async () => {
    const twins = await buildVerifyRepo(
      "verify-twins",
      [{ folder: "05-twin-one" }, { folder: "05-twin-two" }],
      { withSound: false },
    );
    try {
      const message =
        "清单无效：第 05 课有 2 个文件夹（labs/05-twin-one、labs/05-twin-two），课号必须唯一";
      const found = await verifyAll(twins.repo);
      expect(found.map((verdict) => verdict.checks)).toEqual([
        [{ ok: false, text: message }],
        [{ ok: false, text: message }],
      ]);
      for (const args of [["05"], ["--all"]]) {
        let out = "";
        let err = "";
        const code = await runVerifyCli(twins.repo, args, {
          out: (text) => (out += text),
          err: (text) => (err += text),
        });
        expect(code, args.join(" ")).toBe(1);
        expect(out.split("\n").filter((line) => line.includes(message))).toHaveLength(2);
        expect(err).toBe("");
      }
    } finally {
      await twins.cleanup();
    }
  }, 600_000);
});

describe("the verdict cache", () => {
  it("stores sound verdicts only", async () => {
    const stored = await readdir(path.join(repo, ".lab-kit", "verify-cache"));
    expect(stored).toEqual(["01-sound.json"]);
  });

  it("reuses a sound verdict while nothing it depends on changes", async () => {
    const labs = (await listLabs(repo)).filter((lab) => lab.id === "01");
    const [again] = await verifyLessons(repo, labs, { seed: 7, cache: true });
    expect(again?.cached).toBe(true);
    expect(again?.checks).toEqual(verdictsOf(verdicts).verdict("01").checks);
    expect(formatVerdict(again ?? verdictsOf(verdicts).verdict("01"))).toContain("来自缓存");
  });

  it("keys a verdict on the lab, its committed starter, every package and the seed", async () => {
    const [lab] = (await listLabs(repo)).filter((entry) => entry.id === "01");
    if (lab === undefined) throw new Error("no lab 01");
    const starter = new Map([["src/index.ts", "export {};\n"]]);
    const key = async (seed?: number) =>
      verdictKey(repo, await sharedKey(repo, seed), lab, starter);
    const before = await key();
    expect(await key()).toBe(before);
    expect(await key(3)).not.toBe(before);
    expect(await verdictKey(repo, await sharedKey(repo, undefined), lab, new Map())).not.toBe(
      before,
    );
    const sum = path.join(repo, "packages", "capstone", "src", "sum.ts");
    await writeFile(sum, `${await readFile(sum, "utf8")}// changed\n`);
    expect(await key()).not.toBe(before);
    const readme = path.join(lab.dir, "README.md");
    await writeFile(readme, `${await readFile(readme, "utf8")}\n`);
    const afterReadme = await key();
    await writeFile(readme, `${await readFile(readme, "utf8")}\n`);
    expect(await key()).not.toBe(afterReadme);
    // Seven keys, each hashing every package file and a git read: seconds on a busy machine.
  }, 60_000);
});
