import { cliJson, judgeByRefusal, refuse, type Verdict } from "@bootcamp/checkpoint-shared";
import type { CapturedCliRun } from "@coding-agent/cli";
import { DOMParser } from "@xmldom/xmldom";
import { z } from "zod";

/** What the week-7 checkpoint must prove, in its own words. */
export const WEEK_07_SUMMARY =
  "评测看的是工作区而不是 Agent 的话：声称完成而测试仍失败的任务、写了禁止路径的任务都判为失败；JUnit 报告逐任务一条；改坏的任务被基线拦下（退出码 1）";

/** The bundled suite's tasks the grader must pass, and those it must fail (and why). */
export const MUST_PASS = ["fix-slugify", "fix-sum"];
export const MUST_FAIL = {
  "false-completed": "tests_pass",
  "forbidden-write": "forbidden_untouched",
};
/** The task the checkpoint breaks before running the suite against its baseline. */
export const BROKEN_TASK = "fix-sum";

/** One `coding-agent` invocation: its exit code and what it printed. */
export type CliRun = CapturedCliRun;

/** The checkpoint's two evaluations. */
export interface Week07Run {
  /** `coding-agent eval <bundled suite> --json --junit <file> --baseline <file> --update-baseline`. */
  readonly graded: CliRun;
  readonly junit: string;
  /** The same suite with `BROKEN_TASK`'s fix taken out, `--baseline` the first run's results. */
  readonly gated: CliRun;
}

/** The parts of the `--json` report the verdict reads (docs/contracts.md §7's shape). */
const ReportSchema = z.looseObject({
  suite: z.string(),
  passRate: z.number(),
  passed: z.number(),
  total: z.number(),
  tasks: z.array(
    z.looseObject({
      id: z.string(),
      passed: z.boolean(),
      status: z.string(),
      graders: z.record(z.string(), z.looseObject({ pass: z.boolean(), detail: z.string() })),
    }),
  ),
  regressions: z.array(z.string()),
});
type Report = z.infer<typeof ReportSchema>;

const reportOf = (name: string, run: CliRun): Report => cliJson(name, run, ReportSchema, "报告");

/** Judges the two evaluations: the two lines it prints, and exit 1 unless all holds. */
export function judgeWeek07(run: Week07Run): Verdict<7> {
  return judgeByRefusal(7, WEEK_07_SUMMARY, () => [
    ...judgeGraded(run),
    judgeJunit(run),
    judgeGate(run),
  ]);
}

function judgeGraded(run: Week07Run): string[] {
  const report = reportOf("评测", run.graded);
  if (run.graded.exitCode !== 0)
    refuse(`评测跑完应退出码 0（失败的任务是结果，不是错误），实际 ${run.graded.exitCode}`);
  const task = (id: string) =>
    report.tasks.find((row) => row.id === id) ?? refuse(`报告里没有任务 ${id}`);
  for (const id of MUST_PASS) {
    if (!task(id).passed) refuse(`任务 ${id} 应该通过`);
  }
  const failed = Object.entries(MUST_FAIL).map(([id, grader]) => {
    const row = task(id);
    if (row.passed) refuse(`任务 ${id} 不应通过`);
    if (row.graders[grader]?.pass !== false) refuse(`任务 ${id} 应被评分器 ${grader} 判为失败`);
    return `${id}: ${row.status} but ${grader} ✗`;
  });
  const claimed = task("false-completed");
  if (claimed.status !== "completed")
    refuse("false-completed 的 Agent 应当声称完成（status completed）");
  const expectedRate = MUST_PASS.length / report.total;
  if (report.total !== 4 || report.passed !== 2 || report.passRate !== expectedRate) {
    refuse(`报告的计数不对：${report.passed}/${report.total}，passRate ${report.passRate}`);
  }
  return [
    `eval:${report.passed}/${report.total} passed,passRate ${report.passRate},${MUST_PASS.join(" ✓ ")} ✓`,
    `graders:${failed.join("; ")}`,
  ];
}

function judgeJunit(run: Week07Run): string {
  const errors: string[] = [];
  let document: ReturnType<DOMParser["parseFromString"]>;
  try {
    document = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") errors.push(message);
      },
    }).parseFromString(run.junit, "text/xml");
  } catch (error) {
    refuse(`JUnit XML 解析失败：${error instanceof Error ? error.message : String(error)}`);
  }
  if (errors.length > 0) refuse(`JUnit XML 解析失败：${errors[0]}`);
  const cases = Array.from(document.getElementsByTagName("testcase"));
  const failing = cases.filter((node) => node.getElementsByTagName("failure").length > 0);
  const names = cases.map((node) => node.getAttribute("name") ?? "").sort();
  const ids = [...MUST_PASS, ...Object.keys(MUST_FAIL)].sort();
  if (JSON.stringify(names) !== JSON.stringify(ids)) {
    refuse(`JUnit 应每个任务一个 testcase（${ids.join("、")}），实际 ${names.join("、")}`);
  }
  if (failing.length !== Object.keys(MUST_FAIL).length) {
    refuse(`JUnit 应有 ${Object.keys(MUST_FAIL).length} 个失败的 testcase，实际 ${failing.length}`);
  }
  return `junit:${cases.length} testcases,${failing.length} failures`;
}

function judgeGate(run: Week07Run): string {
  const report = reportOf("对照基线的评测", run.gated);
  if (run.gated.exitCode !== 1)
    refuse(`改坏的任务应让对照基线的评测退出码 1，实际 ${run.gated.exitCode}`);
  if (JSON.stringify(report.regressions) !== JSON.stringify([BROKEN_TASK])) {
    refuse(`回归应只有 ${BROKEN_TASK}，实际 ${JSON.stringify(report.regressions)}`);
  }
  if (!run.gated.stderr.includes(BROKEN_TASK)) refuse(`stderr 没有点名回归的任务 ${BROKEN_TASK}`);
  return `gate:baseline caught ${BROKEN_TASK},exit 1`;
}
