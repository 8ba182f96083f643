import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  acceptCapstone,
  type CapstoneCheck,
  type CapstoneEvidence,
  type CapstoneVerdict,
} from "@lab";
import { describe, expect, it } from "vitest";
import { evidenceOf, once, runEval, runFixture } from "./capstone-run.ts";
import {
  COMMAND_CHANGE_AFTER_TESTS,
  DELETED_TEST_FILE,
  FIX_SCRIPT,
  SKIPPED_TESTS,
  TESTED_BEFORE_LAST_CHANGE,
  UNTESTED,
} from "./scripts.ts";

// Real runs of the whole agent, real `node --test`, a real eval of five tasks: the timeout
// only turns a hang into a failure.
const REAL = 120_000;

const fixed = once(() => runFixture(FIX_SCRIPT));
const evaluated = once(() => runEval());
/** fix-sum's agent only claims to be done: it passed in the baseline and fails now. */
const regressed = once(() => runEval({ broken: ["fix-sum"] }));
/** The fix straight to the finish, the gate off: a whole trace of another run, too. */
const untested = once(() => runFixture(UNTESTED, ["--finish-gate", "none"]));
const fixedEvidence = once(async () => evidenceOf(await fixed(), await evaluated()));
/** A run's evidence with the good eval (the attacks are in the run, not in the eval). */
const withGoodEval = async (run: ReturnType<typeof runFixture>) =>
  evidenceOf(await run, await evaluated());

const checksOf = (verdict: CapstoneVerdict): CapstoneCheck[] =>
  verdict.reasons.map((reason) => reason.check);
const messagesOf = (verdict: CapstoneVerdict, check: CapstoneCheck): string =>
  verdict.reasons
    .filter((reason) => reason.check === check)
    .map((reason) => reason.message)
    .join("\n");

describe("the capstone run itself", () => {
  it(
    "fixes the fixture through the real CLI: completed, the gate's tests pass at the final version, only src/paginate.ts changed",
    async () => {
      const run = await fixed();
      expect(run.cli.exitCode, run.cli.stderr).toBe(0);
      expect(run.run.status).toBe("completed");
      expect(run.run.evidence?.tests, "完成验证门记下的测试").toMatchObject({
        passed: 6,
        failed: 0,
      });
      expect(run.run.evidence?.tests?.version).toBe(run.run.evidence?.endVersion);
      expect(run.patch).toEqual([{ path: "src/paginate.ts", change: "modified" }]);
      const fixedSource = await readFile(join(run.workspace, "src/paginate.ts"), "utf8");
      expect(fixedSource).toContain("Math.ceil(items.length / perPage)");
    },
    REAL,
  );

  it(
    "grades the capstone task beside fix-sum against the baseline: fix-paginate passes, no regression",
    async () => {
      const { cli, report } = await evaluated();
      expect(cli.exitCode, cli.stderr).toBe(0);
      expect(report.tasks.map((task) => task.id)).toEqual(["fix-paginate", "fix-sum"]);
      const row = report.tasks.find((task) => task.id === "fix-paginate");
      expect(row?.passed, "评测里结业任务通过").toBe(true);
      expect(report.regressions).toEqual([]);
    },
    REAL,
  );
});

describe("acceptCapstone on the evidence of a real fix", () => {
  it(
    "accepts the fix: finished through the finish gate, tested after the last change, whole trace, patch in scope, no regression",
    async () => {
      expect(acceptCapstone(await fixedEvidence())).toEqual({ accepted: true, reasons: [] });
    },
    REAL,
  );

  it(
    "refuses a run that did not finish",
    async () => {
      const evidence = await fixedEvidence();
      const verdict = acceptCapstone({
        ...evidence,
        run: { ...evidence.run, status: "failed", code: "finish_rejected" },
      });
      expect(checksOf(verdict), "没有完成的运行").toContain("finished");
    },
    REAL,
  );
});

describe("acceptCapstone refuses what a completed status hides", () => {
  it(
    "a run that finished with the finish gate off and never ran the tests: finish_gate and tests_after_change",
    async () => {
      const evidence = evidenceOf(await untested(), await evaluated());
      expect(evidence.run.status, "这次运行的 status 是 completed").toBe("completed");
      const verdict = acceptCapstone(evidence);
      expect(verdict.accepted, "模型说完成了，但没有人跑过测试").toBe(false);
      expect(checksOf(verdict), "没有经过完成验证门").toContain("finish_gate");
      expect(checksOf(verdict), "没有一次 run_tests").toContain("tests_after_change");
    },
    REAL,
  );

  it(
    "a run whose last run_tests came before its last change: tests_after_change",
    async () => {
      const evidence = await withGoodEval(
        runFixture(TESTED_BEFORE_LAST_CHANGE, ["--finish-gate", "none"]),
      );
      expect(evidence.run.status, "这次运行的 status 是 completed").toBe("completed");
      const verdict = acceptCapstone(evidence);
      expect(verdict.accepted, "测过之后又改了代码").toBe(false);
      expect(checksOf(verdict), "最后一次测试早于最后一次改动").toContain("tests_after_change");
    },
    REAL,
  );

  it(
    "a run whose last change came from run_command after its last run_tests: tests_after_change, seen in the workspace version",
    async () => {
      const evidence = await withGoodEval(
        runFixture(COMMAND_CHANGE_AFTER_TESTS, [
          "--finish-gate",
          "none",
          "--allow-command",
          "node",
        ]),
      );
      expect(evidence.run.status, "这次运行的 status 是 completed").toBe("completed");
      expect(evidence.patch, "命令也改了 src/paginate.ts").toEqual([
        { path: "src/paginate.ts", change: "modified" },
      ]);
      const verdict = acceptCapstone(evidence);
      expect(verdict.accepted, "测过之后，一条命令又改了代码").toBe(false);
      expect(checksOf(verdict), "最后一次改动来自 run_command，不是编辑工具").toContain(
        "tests_after_change",
      );
    },
    REAL,
  );

  it(
    "a run that skipped the failing tests passes the finish gate, and is refused: scope names the test file",
    async () => {
      const evidence = await withGoodEval(runFixture(SKIPPED_TESTS));
      expect(evidence.run.evidence?.tests, "完成验证门认可了它（跳过了 2 个）").toMatchObject({
        failed: 0,
        skipped: 2,
      });
      const verdict = acceptCapstone(evidence);
      expect(verdict.accepted, "给失败的测试加 .skip 不是修复").toBe(false);
      expect(messagesOf(verdict, "scope"), "范围检查写出被改的测试文件").toContain(
        "test/paginate.test.ts",
      );
    },
    REAL,
  );

  it(
    "a run that deleted the failing test file with run_command passes the finish gate, and is refused: scope names the removed file",
    async () => {
      const evidence = await withGoodEval(runFixture(DELETED_TEST_FILE, ["--allow-command", "rm"]));
      expect(evidence.run.evidence?.tests, "完成验证门认可了它（剩下的 2 个通过）").toMatchObject({
        passed: 2,
        failed: 0,
      });
      expect(evidence.patch).toEqual([{ path: "test/paginate.test.ts", change: "removed" }]);
      const verdict = acceptCapstone(evidence);
      expect(verdict.accepted, "删掉失败的测试文件不是修复").toBe(false);
      expect(messagesOf(verdict, "scope"), "范围检查写出被删的测试文件").toContain(
        "test/paginate.test.ts",
      );
    },
    REAL,
  );

  it(
    "an eval where another task regressed against the baseline: eval names it",
    async () => {
      const evaluation = await regressed();
      expect(evaluation.report.regressions, "评测报告里的回归").toEqual(["fix-sum"]);
      const verdict = acceptCapstone(evidenceOf(await fixed(), evaluation));
      expect(verdict.accepted, "结业任务通过了，但 fix-sum 坏了").toBe(false);
      expect(messagesOf(verdict, "eval"), "评测检查写出回归的任务").toContain("fix-sum");
    },
    REAL,
  );

  it(
    "an eval where the capstone task itself failed: eval names its failing grader",
    async () => {
      const evidence = await fixedEvidence();
      const report = {
        ...evidence.eval,
        tasks: evidence.eval.tasks.map((task) =>
          task.id === "fix-paginate"
            ? {
                ...task,
                passed: false,
                graders: { ...task.graders, tests_pass: { pass: false, detail: "退出码 1" } },
              }
            : task,
        ),
      };
      const verdict = acceptCapstone({ ...evidence, eval: report });
      expect(messagesOf(verdict, "eval"), "评测检查写出没通过的评分器").toContain("tests_pass");
    },
    REAL,
  );
});

describe("acceptCapstone checks the trace it is given", () => {
  const tampered = async (
    edit: (trace: CapstoneEvidence["trace"]) => CapstoneEvidence["trace"],
  ) => {
    const evidence = await fixedEvidence();
    return acceptCapstone({ ...evidence, trace: edit(evidence.trace) });
  };

  it(
    "a trace with one event taken out has a seq gap: trace",
    async () => {
      const verdict = await tampered((trace) => trace.filter((event) => event.seq !== 5));
      expect(verdict.accepted, "少了一个事件的轨迹").toBe(false);
      expect(messagesOf(verdict, "trace"), "理由写出 checkTrace 的说明").toContain("seq 应为 5");
    },
    REAL,
  );

  it(
    "a trace cut before run_finished: trace",
    async () => {
      const verdict = await tampered((trace) => trace.slice(0, -1));
      expect(checksOf(verdict), "没有 run_finished 的轨迹").toContain("trace");
    },
    REAL,
  );

  it(
    "the whole trace of another run: trace",
    async () => {
      const other = await untested();
      const verdict = await tampered(() => other.trace);
      expect(verdict.accepted, "换成另一次运行的完整轨迹").toBe(false);
      expect(messagesOf(verdict, "trace"), "理由写出另一次运行的 runId").toContain(other.run.runId);
    },
    REAL,
  );
});
