import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadSuite } from "@coding-agent/eval";
import { checkTask, fieldName, HARNESS_FLAGS, harnessFlagIn } from "@lab";
import { afterEach, describe, expect, it } from "vitest";

const FILE = "evals/demo/fix-sum/task.json";
const valid = {
  id: "fix-sum",
  goal: "修好 sum.js，让 node --test 通过",
  repo: "repo",
  testCommand: "node --test",
  forbiddenPaths: ["test/**"],
  args: ["--max-steps", "8"],
  expect: { status: "completed" },
};

describe("fieldName", () => {
  it("names a top-level field by its key", () => {
    expect(fieldName(["testCommand"])).toBe("testCommand");
  });

  it("names a nested field with a dot: expect.status", () => {
    expect(fieldName(["expect", "status"]), "只写 status，读的人找不到它在哪个对象里").toBe(
      "expect.status",
    );
  });

  it("names an array item with its index: forbiddenPaths[0]", () => {
    expect(fieldName(["forbiddenPaths", 0]), "数组下标写成 [0]").toBe("forbiddenPaths[0]");
    expect(fieldName(["a", 2, "b"])).toBe("a[2].b");
  });

  it("names the task itself (根) when the problem is the whole object", () => {
    expect(fieldName([])).toBe("(根)");
  });
});

describe("harnessFlagIn", () => {
  it("finds each flag the harness sets: --workspace, --json, --script, --test-command, --help", () => {
    for (const flag of HARNESS_FLAGS) {
      expect(harnessFlagIn(["--max-steps", "3", `--${flag}`]), `--${flag} 由评测框架设置`).toBe(
        `--${flag}`,
      );
    }
  });

  it("finds a flag given with its value after =: --workspace=/tmp/x", () => {
    expect(
      harnessFlagIn(["--model", "m", "--workspace=/tmp/x"]),
      "--workspace=/tmp/x 一样把工作区指到了别处",
    ).toBe("--workspace=/tmp/x");
    expect(harnessFlagIn(["--test-command=true"]), "--test-command=true 让测试永远通过").toBe(
      "--test-command=true",
    );
  });

  it("keeps the run's own flags: --max-steps 5, --model m", () => {
    expect(harnessFlagIn(["--max-steps", "5", "--model", "m", "--allow-path", "src/**"])).toBe(
      undefined,
    );
  });

  it("keeps a value that only reads like a harness flag's name: --model json", () => {
    expect(
      harnessFlagIn(["--model", "json", "--allow-path", "workspace/**", "--max-cost", "0.5"]),
      "json、workspace/** 是选项的值，不是选项",
    ).toBe(undefined);
  });
});

describe("checkTask", () => {
  it("accepts a valid task and gives its fields back", () => {
    expect(checkTask(FILE, valid)).toEqual({ ok: true, task: valid });
  });

  it("refuses a missing required field, naming the file and the field: testCommand", () => {
    const { testCommand: _, ...missing } = valid;
    const result = checkTask(FILE, missing);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.field).toBe("testCommand");
    expect(result.message).toMatch(new RegExp(`^任务文件 ${FILE} 无效：testCommand: `));
  });

  it("names the field of a nested mistake: expect.status", () => {
    const result = checkTask(FILE, { ...valid, expect: { status: "great" } });
    expect(result.ok || result.field, "错误要点名 expect.status").toBe("expect.status");
  });

  it("names the item of a list: forbiddenPaths[1]", () => {
    const result = checkTask(FILE, { ...valid, forbiddenPaths: ["test/**", ""] });
    expect(result.ok || result.field, "错误要点名 forbiddenPaths[1]").toBe("forbiddenPaths[1]");
  });

  it("refuses a misspelled field (forbidenPaths) instead of dropping it", () => {
    const { forbiddenPaths, ...rest } = valid;
    const result = checkTask(FILE, { ...rest, forbidenPaths: forbiddenPaths });
    expect(result.ok, "拼错的 forbidenPaths 被悄悄丢掉，禁止路径就没人检查了").toBe(false);
    if (!result.ok) expect(result.message).toContain("forbidenPaths");
  });

  it("refuses args holding a harness flag, naming args and the flag", () => {
    const result = checkTask(FILE, { ...valid, args: ["--max-steps", "8", "--workspace=/"] });
    expect(result).toEqual({
      ok: false,
      field: "args",
      message: `任务文件 ${FILE} 无效：args: --workspace=/ 由评测框架设置，任务不能给`,
    });
  });
});

describe("the capstone's loadSuite", () => {
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  /** A suite of one task `fix-sum` whose task.json is `json`, with a one-file fixture. */
  async function suiteOf(json: unknown): Promise<{ suite: string; file: string }> {
    const suite = await mkdtemp(path.join(tmpdir(), "lab-31-"));
    folders.push(suite);
    await mkdir(path.join(suite, "fix-sum", "repo"), { recursive: true });
    await writeFile(
      path.join(suite, "fix-sum", "repo", "sum.js"),
      "export const sum = (a, b) => a - b;\n",
    );
    const file = path.join(suite, "fix-sum", "task.json");
    await writeFile(file, JSON.stringify(json));
    return { suite, file };
  }
  const anyRunArgs = () => undefined;

  it("refuses a task whose args set --workspace=…, with your harnessFlagIn inside it", async () => {
    const { suite, file } = await suiteOf({ ...valid, args: ["--workspace=/tmp/elsewhere"] });
    const result = await loadSuite(suite, anyRunArgs, harnessFlagIn);
    expect(result.ok ? "通过了" : result.message).toBe(
      `任务文件 ${file} 无效：args: --workspace=/tmp/elsewhere 由评测框架设置，任务不能给`,
    );
    const kept = await suiteOf({ ...valid, args: ["--model", "json"] });
    const loaded = await loadSuite(kept.suite, anyRunArgs, harnessFlagIn);
    expect(loaded.ok ? loaded.suite.tasks[0]?.args : loaded.message).toEqual(["--model", "json"]);
  });

  it("agrees with your checkTask on every task file: same verdict, same field, same words", async () => {
    const { forbiddenPaths, ...rest } = valid;
    const cases = [
      valid,
      { ...valid, testCommand: undefined },
      { ...valid, expect: { status: "great" } },
      { ...valid, forbiddenPaths: ["test/**", ""] },
      { ...rest, forbidenPaths: forbiddenPaths },
      { ...valid, args: ["--json"] },
      { ...valid, args: ["--test-command=true"] },
      { ...valid, timeoutMs: 0 },
    ];
    for (const json of cases) {
      const { suite, file } = await suiteOf(json);
      const capstone = await loadSuite(suite, anyRunArgs);
      const yours = checkTask(file, JSON.parse(JSON.stringify(json)));
      const label = JSON.stringify(json);
      expect(yours.ok, label).toBe(capstone.ok);
      if (!yours.ok && !capstone.ok)
        expect(
          capstone.message.startsWith(yours.message),
          `${label}\n总项目：${capstone.message}\n你的：${yours.message}`,
        ).toBe(true);
    }
  });
});
