import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LearnerContext } from "../../src/learner/learner-context.ts";
import { runLessonCommand } from "../../src/learner/lesson-command.ts";
import { colorizePatch, diffStarterAgainstSolution } from "../../src/learner/lesson-diff.ts";
import { colorsFor } from "../../src/learner/terminal.ts";
import {
  captureStream,
  createFixtureRepo,
  type FixtureRepo,
  SOLUTION_SOURCE,
  STARTER_SOURCE,
} from "./fixture-repo.ts";

let repo: FixtureRepo;

/** A terminal's stdin on which the learner types `answer`. */
function typedStdin(answer: string): NonNullable<LearnerContext["stdin"]> {
  return Object.assign(Readable.from([answer]), { isTTY: true });
}

beforeAll(async () => {
  repo = await createFixtureRepo([{ id: "01" }, { id: "02" }, { id: "03" }]);
  await repo.write("labs/02-demo-sum/starter/src/index.ts", STARTER_SOURCE.replace("你好", "您好"));
  await repo.write("labs/03-demo-sum/starter/src/index.ts", SOLUTION_SOURCE);
});

afterAll(async () => {
  await repo.remove();
});

function changedLines(patch: string): string[] {
  return patch
    .split("\n")
    .filter((line) => /^[-+ ]/.test(line) && !line.startsWith("---") && !line.startsWith("+++"));
}

describe("diffStarterAgainstSolution", () => {
  it("shows only the exercise region of a pristine starter", async () => {
    const lab = repo.labDir("01");
    const [diff] = await diffStarterAgainstSolution(`${lab}/starter`, `${lab}/solution`);
    expect(diff?.scope).toBe("regions");
    expect(changedLines(diff?.patch ?? "")).toEqual([
      "   // #region exercise",
      "-  // TODO(lab-90): 把所有数加起来；空列表的和是 0。",
      "-  return Number.NaN;",
      "+  // 初始值 0 让空列表也有和。",
      "+  return values.reduce((total, value) => total + value, 0);",
      "   // #endregion exercise",
    ]);
  });

  it("numbers the hunk by the region's lines in each file", async () => {
    const lab = repo.labDir("01");
    const [diff] = await diffStarterAgainstSolution(`${lab}/starter`, `${lab}/solution`);
    expect(diff?.patch).toContain("--- starter/src/index.ts");
    expect(diff?.patch).toContain("+++ solution/src/index.ts");
    expect(diff?.patch).toContain("@@ -6,4 +6,4 @@");
  });

  it("diffs the whole file when the learner changed code outside the regions", async () => {
    const lab = repo.labDir("02");
    const [diff] = await diffStarterAgainstSolution(`${lab}/starter`, `${lab}/solution`);
    expect(diff?.scope).toBe("whole-file");
    expect(diff?.patch).toContain("-  return `您好，");
  });

  it("finds no difference once the starter matches the solution", async () => {
    const lab = repo.labDir("03");
    expect(await diffStarterAgainstSolution(`${lab}/starter`, `${lab}/solution`)).toEqual([]);
  });
});

describe("pnpm lesson diff", () => {
  function context(isTTY: boolean, env: NodeJS.ProcessEnv, answer?: string) {
    const stdout = captureStream(isTTY);
    const stderr = captureStream();
    const value: LearnerContext = {
      cwd: repo.root,
      env,
      stdout,
      stderr,
      runTargets: async () => [],
      ...(answer === undefined ? {} : { stdin: typedStdin(answer) }),
    };
    return { value, stdout, stderr };
  }

  it("shows no solution line without the learner's yes, and says how to give it", async () => {
    const { value, stdout, stderr } = context(false, {});
    expect(await runLessonCommand(value, ["diff", "01"])).toBe(2);
    expect(stdout.text()).toContain("会显示第 01 课的参考答案");
    expect(stdout.text()).not.toContain("values.reduce");
    expect(stderr.text()).toContain("pnpm lesson diff 01 --yes");
  });

  it("asks in a terminal, and shows nothing when the answer is no", async () => {
    const { value, stdout } = context(false, {}, "n\n");
    expect(await runLessonCommand(value, ["diff", "01"])).toBe(0);
    expect(stdout.text()).toContain("确定要看参考答案吗？");
    expect(stdout.text()).toContain("没有显示答案");
    expect(stdout.text()).not.toContain("values.reduce");
  });

  it("shows the answer once the learner says yes in a terminal", async () => {
    const { value, stdout } = context(false, {}, "y\n");
    expect(await runLessonCommand(value, ["diff", "01"])).toBe(0);
    expect(stdout.text()).toContain("+  return values.reduce((total, value) => total + value, 0);");
  });

  it("colours the diff in a terminal", async () => {
    const { value, stdout } = context(true, {});
    expect(await runLessonCommand(value, ["diff", "01", "--yes"])).toBe(0);
    expect(stdout.text()).toContain("\u001b[31m-  return Number.NaN;");
  });

  it("prints a plain diff under NO_COLOR", async () => {
    const { value, stdout } = context(true, { NO_COLOR: "1" });
    await runLessonCommand(value, ["diff", "01", "--yes"]);
    expect(stdout.text()).toContain("\n-  return Number.NaN;");
    expect(stdout.text()).not.toContain("\u001b[");
  });

  it("warns when the starter differs outside the exercise regions", async () => {
    const { value, stdout } = context(false, {});
    await runLessonCommand(value, ["diff", "02", "--yes"]);
    expect(stdout.text()).toContain(
      "src/index.ts 在练习区域（// #region exercise）之外也与参考答案不同",
    );
  });

  it("colours nothing but marked lines", () => {
    const colors = colorsFor({ isTTY: true }, {});
    expect(colorizePatch(" context", colors)).toBe(" context");
  });
});
