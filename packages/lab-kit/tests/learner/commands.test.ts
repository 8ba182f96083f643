import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LearnerContext } from "../../src/learner/learner-context.ts";
import { runLessonCommand } from "../../src/learner/lesson-command.ts";
import { runLessonsCommand } from "../../src/learner/lessons-command.ts";
import type { LessonJson } from "../../src/learner/lessons-report.ts";
import { runLabTargets } from "../../src/run/runner.ts";
import type { RunTarget, TargetReport } from "../../src/run/targets.ts";
import {
  captureStream,
  createFixtureRepo,
  FIRST_TEST,
  type FixtureRepo,
  HINTS,
  PARTLY_DONE_SOURCE,
  SECOND_TEST,
  SOLUTION_SOURCE,
  WEAKENED_TEST,
} from "./fixture-repo.ts";

// One real test run for the whole file: `pnpm lessons` on four fixture labs. The hint
// commands then replay that run's reports, so the suite starts vitest only once.
let repo: FixtureRepo;
const recorded = new Map<string, TargetReport>();
let lessonsJson: { lessons: LessonJson[]; next: string | null };
let lessonsExit: number;
let lessonsText: string;
let firstLookErr: string;
let secondLookErr: string;

function context(stdout = captureStream(), stderr = captureStream()): LearnerContext {
  return {
    cwd: repo.root,
    env: { NO_COLOR: "1" },
    stdout,
    stderr,
    runTargets: async (targets: readonly RunTarget[]) =>
      targets.map(
        (target) =>
          recorded.get(target.label) ?? { label: target.label, tests: [], loadErrors: [] },
      ),
  };
}

function lesson(id: string): LessonJson | undefined {
  return lessonsJson.lessons.find((entry) => entry.id === id);
}

beforeAll(async () => {
  repo = await createFixtureRepo([
    { id: "01" },
    { id: "02" },
    { id: "03" },
    { id: "04" },
    { id: "05" },
  ]);
  await repo.write("labs/02-demo-sum/starter/src/index.ts", PARTLY_DONE_SOURCE);
  await repo.write("labs/03-demo-sum/starter/src/index.ts", SOLUTION_SOURCE);
  await repo.write("labs/04-demo-sum/tests/lab.test.ts", WEAKENED_TEST);
  await repo.write("labs/05-demo-sum/starter/src/index.ts", "export function sum(values: {\n");
  const stdout = captureStream();
  const firstErr = captureStream();
  lessonsExit = await runLessonsCommand(
    {
      ...context(stdout, firstErr),
      runTargets: async (targets, options) => {
        const reports = await runLabTargets(targets, options);
        for (const report of reports) recorded.set(report.label, report);
        return reports;
      },
    },
    ["--json"],
  );
  lessonsJson = JSON.parse(stdout.text());
  firstLookErr = firstErr.text();
  const text = captureStream();
  const secondErr = captureStream();
  await runLessonsCommand(context(text, secondErr), []);
  lessonsText = text.text();
  secondLookErr = secondErr.text();
}, 60_000);

afterAll(async () => {
  await repo.remove();
});

describe("pnpm lessons", () => {
  it("says on stderr which starters it runs on a first look, and how long that took", () => {
    expect(firstLookErr).toContain("正在运行 5 课的 starter 测试（01、02、03、04、05）");
    expect(firstLookErr).toMatch(/测试跑完，用时 \d+ 秒。/);
  });

  it("counts the lessons as their starters finish, in lesson order when stderr is not a terminal", () => {
    const counted = firstLookErr.split("\n").filter((line) => line.includes("已跑完"));
    expect(counted).toEqual(
      ["01", "02", "03", "04", "05"].map(
        (id, index) => `  已跑完 ${index + 1}/5 课（第 ${id} 课）`,
      ),
    );
  });

  it("runs, and names, only the starters without a kept report on the next look", () => {
    // 05 does not load: its report is never kept.
    expect(secondLookErr).toContain("正在运行 1 课的 starter 测试（05）");
  });

  it("exits 0 when every lab is usable", () => {
    expect(lessonsExit).toBe(0);
  });

  it("reports an untouched starter as not started, with its passing count", () => {
    expect(lesson("01")).toMatchObject({ state: "not_started", passed: 1, total: 3 });
  });

  it("reports a partly done starter as N of M tests passing", () => {
    expect(lesson("02")).toMatchObject({ state: "in_progress", passed: 2, total: 3 });
  });

  it("reports a starter that passes every test as complete", () => {
    expect(lesson("03")).toMatchObject({ state: "complete", passed: 3, total: 3, tests: "intact" });
  });

  it("flags a lab whose tests differ from the committed ones", () => {
    expect(lesson("04")).toMatchObject({ state: "complete", tests: "changed" });
  });

  it("reports a starter that does not compile as a load error, with the reason", () => {
    expect(lesson("05")).toMatchObject({ state: "load_error", passed: null, total: null });
    expect(lesson("05")?.problems[0]).toMatch(/^tests\/lab\.test\.ts: /);
  });

  it("names the first unfinished lesson as the next one", () => {
    expect(lessonsJson.next).toBe("01");
  });

  it("prints one line per lesson under its week, without colour codes under NO_COLOR", () => {
    expect(lessonsText).toContain("第 1 周");
    expect(lessonsText).toMatch(/^ {2}01 {2}求和练习 01 {2}未开始$/m);
    expect(lessonsText).toMatch(/^ {2}02 {2}求和练习 02 {2}2\/3 个测试通过$/m);
    expect(lessonsText).toMatch(/^ {2}03 {2}求和练习 03 {2}已完成（3\/3）$/m);
    expect(lessonsText).toContain("下一课：01 求和练习 01");
    expect(lessonsText).not.toContain("\u001b[");
  });

  it("shows the load error's first line in the table", () => {
    expect(lessonsText).toMatch(/^ {2}05 {2}求和练习 05 {2}测试无法加载：\S/m);
  });

  it("says plainly in the table that a lab's tests were changed", () => {
    expect(lessonsText).toMatch(/04 {2}求和练习 04 {2}已完成（3\/3）（测试已被改动！）/);
    expect(lessonsText).toContain("labs/04-demo-sum/tests/ 与提交的版本不同（已修改 lab.test.ts）");
  });

  it("rejects an unknown flag with exit code 2 and the usage", async () => {
    const stderr = captureStream();
    expect(await runLessonsCommand(context(captureStream(), stderr), ["--jsno"])).toBe(2);
    expect(stderr.text()).toContain("用法：pnpm lessons [--json]");
  });
});

// Each hint runs the lab's tests in real vitest processes: a hang guard a loaded machine
// does not reach, as for the other process tests (10 s was reached at load 60).
describe("pnpm lesson hint", { timeout: 120_000 }, () => {
  async function hint(id: string): Promise<string> {
    const stdout = captureStream();
    expect(await runLessonCommand(context(stdout), ["hint", id])).toBe(0);
    return stdout.text();
  }

  it("reveals the hints for the first failing test one at a time, in manifest order", async () => {
    const first = await hint("01");
    const second = await hint("01");
    const third = await hint("01");
    expect(first).toContain(`第一个失败的测试：${FIRST_TEST}`);
    expect(first).toContain(`提示 1/3：${HINTS[0]?.text}`);
    expect(second).toContain(`提示 2/3：${HINTS[1]?.text}`);
    expect(third).toContain(`提示 3/3：${HINTS[2]?.text}`);
  });

  it("repeats the last hint once all of them were shown", async () => {
    const output = await hint("01");
    expect(output).toContain(`提示 3/3（都已看过，这是最后一条）：${HINTS[2]?.text}`);
  });

  it("remembers shown hints in .bootcamp/hints.json", async () => {
    const state = JSON.parse(
      await readFile(path.join(repo.root, ".bootcamp", "hints.json"), "utf8"),
    );
    expect(state.labs["01"].shown).toHaveLength(3);
  });

  it("moves on to the hints of the next failing test once the first passes", async () => {
    const output = await hint("02");
    expect(output).toContain(`第一个失败的测试：${SECOND_TEST}`);
    expect(output).toContain(`提示 1/2：${HINTS[0]?.text}`);
  });

  it("asks to fix a starter that does not compile before giving hints", async () => {
    expect(await hint("05")).toContain("测试文件无法加载：tests/lab.test.ts");
  });

  it("says no hint is needed when every test passes", async () => {
    expect(await hint("03")).toContain("测试全部通过，不需要提示。");
  });

  it("says plainly that the tests were changed", async () => {
    expect(await hint("04")).toContain("labs/04-demo-sum/tests/ 与提交的版本不同");
  });

  it("answers from the report pnpm lessons kept, running no test, while the lab is unchanged", async () => {
    const asked: string[] = [];
    const stdout = captureStream();
    const counting: LearnerContext = {
      ...context(stdout),
      runTargets: async (targets) => {
        asked.push(...targets.map((target) => target.label));
        return [];
      },
    };
    expect(await runLessonCommand(counting, ["hint", "03"])).toBe(0);
    expect(asked).toEqual([]);
    expect(stdout.text()).toContain("测试全部通过，不需要提示。");
  });

  it("runs the starter again once the learner changed it", async () => {
    const asked: string[] = [];
    await repo.write("labs/03-demo-sum/starter/src/index.ts", PARTLY_DONE_SOURCE);
    const counting: LearnerContext = {
      ...context(),
      runTargets: async (targets) => {
        asked.push(...targets.map((target) => target.label));
        return targets.map((target) => ({ label: target.label, tests: [], loadErrors: [] }));
      },
    };
    try {
      expect(await runLessonCommand(counting, ["hint", "03"])).toBe(0);
    } finally {
      await repo.write("labs/03-demo-sum/starter/src/index.ts", SOLUTION_SOURCE);
    }
    expect(asked).toEqual(["03:starter"]);
  });

  it("rejects an unknown lesson with exit code 2, listing the valid ones", async () => {
    const stderr = captureStream();
    expect(await runLessonCommand(context(captureStream(), stderr), ["hint", "9"])).toBe(2);
    expect(stderr.text()).toContain("没有编号为「9」的课程");
    expect(stderr.text()).toContain(
      "01 demo-sum、02 demo-sum、03 demo-sum、04 demo-sum、05 demo-sum",
    );
  });
});

describe("pnpm lesson diff and reset on a changed tests/ folder", { timeout: 120_000 }, () => {
  it("diff says plainly that the tests were changed", async () => {
    const stdout = captureStream();
    expect(await runLessonCommand(context(stdout), ["diff", "04", "--yes"])).toBe(0);
    expect(stdout.text()).toContain("labs/04-demo-sum/tests/ 与提交的版本不同");
  });

  it("reset says plainly that the tests were changed", async () => {
    const stdout = captureStream();
    expect(await runLessonCommand(context(stdout), ["reset", "04", "--yes"])).toBe(0);
    expect(stdout.text()).toContain("labs/04-demo-sum/tests/ 与提交的版本不同");
  });
});
