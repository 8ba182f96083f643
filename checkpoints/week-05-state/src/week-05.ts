import { failed, jsonOrUndefined, passed, type Verdict } from "@bootcamp/checkpoint-shared";
import type { CapturedCliRun } from "@coding-agent/cli";
import { z } from "zod";

/** What the week-5 checkpoint must prove, in its own words. */
export const WEEK_05_SUMMARY =
  "完成只在新鲜的通过测试之后被接受；被 SIGKILL 的运行从日志恢复，命令不重跑、编辑不写两次；A-B-A-B 循环被停下；三次 200 KB 输出下每个请求都在上下文预算之内";

export const BUGGY_FILE = "src/sum.js";
export const FIXED_TEXT = "return a + b;";
/** Tokens each request of the context run may take. */
export const CONTEXT_BUDGET = 6_000;

/** One `coding-agent` invocation: its exit code and what it printed. */
export type CliRun = CapturedCliRun;

/** The checkpoint's four runs. */
export interface Week05Run {
  readonly gate: CliRun;
  readonly resume: {
    /** How the first process ended: killed, as planned, or on its own. */
    readonly killedBy: "SIGKILL" | "exit";
    /** Its status in `coding-agent runs` before the resume. */
    readonly statusBefore: string;
    readonly resumed: CliRun | undefined;
    /** How many times the slow command started (its marker file's length). */
    readonly commandRuns: number;
    readonly fileAfter: string;
  };
  readonly loop: CliRun;
  readonly context: {
    readonly run: CliRun;
    /** Tokens of every request the loopback API received (`gpt-tokenizer`). */
    readonly requestTokens: readonly number[];
    readonly artifacts: number;
  };
}

/** The parts of a `--json` result the verdict reads (checked: they cross a process boundary). */
const ResultSchema = z.looseObject({
  status: z.string(),
  code: z.string(),
  reason: z.string(),
  runId: z.string().optional(),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      type: z.string().optional(),
      tool: z.string().optional(),
      ok: z.boolean().optional(),
      content: z.string().optional(),
      reasons: z.array(z.string()).optional(),
      error: z.object({ code: z.string() }).optional(),
    }),
  ),
  evidence: z
    .object({
      endVersion: z.string(),
      tests: z.object({ passed: z.number(), failed: z.number(), version: z.string() }).nullable(),
      changedFiles: z.array(z.string()),
    })
    .nullable()
    .optional(),
});
type Result = z.output<typeof ResultSchema>;

function resultOf(run: CliRun | undefined): Result | undefined {
  if (run === undefined) return undefined;
  const parsed = ResultSchema.safeParse(jsonOrUndefined(run.stdout));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Judges the week-5 runs. Every item of the evidence is read from the runs' own results,
 * the files on disk and the requests the loopback API received; each check compares one
 * of them with what docs/contracts.md §7 says must hold.
 */
export function judgeWeek05(run: Week05Run): Verdict<5> {
  const evidence: string[] = [];
  const fail = (reason: string) => failed(5, WEEK_05_SUMMARY, evidence, reason);

  const gate = resultOf(run.gate);
  if (gate === undefined) return fail("完成验证门那次运行的 --json 输出不是运行结果");
  const rejections = gate.messages
    .filter((message) => message.type === "finish_rejected")
    .map((message) => (message.reasons ?? []).join("+"));
  evidence.push(`gate:${[...rejections, gate.status].join("→")}`);
  if (rejections.join(",") !== "no_test_evidence,tests_failing,stale_test_evidence")
    return fail(
      `完成被拒绝的原因应依次为 no_test_evidence、tests_failing、stale_test_evidence，实际 ${rejections.join("、") || "没有拒绝"}`,
    );
  const tests = gate.evidence?.tests;
  if (gate.status !== "completed" || tests == null || tests.failed !== 0 || tests.passed < 1)
    return fail("新鲜的通过测试之后，完成应被接受");
  if (tests.version !== gate.evidence?.endVersion)
    return fail("被接受的完成所依据的测试不是当前版本的");
  evidence.push(
    `gate evidence:passed=${tests.passed},failed=${tests.failed},fresh,changed=${gate.evidence?.changedFiles.join(",")}`,
  );

  const { resume } = run;
  evidence.push(`resume:killed by ${resume.killedBy},runs says ${resume.statusBefore}`);
  if (resume.killedBy !== "SIGKILL" || resume.statusBefore !== "unfinished")
    return fail("第一次运行应在命令执行期间被 SIGKILL，coding-agent runs 中显示 unfinished");
  const resumed = resultOf(resume.resumed);
  if (resumed === undefined) return fail("coding-agent resume 的 --json 输出不是运行结果");
  const tools = resumed.messages.filter((message) => message.role === "tool");
  evidence.push(
    `resume:${tools.map((m) => `${m.tool}→${m.ok ? "ok" : m.error?.code}`).join(",")},${resumed.status},command started ${resume.commandRuns}×`,
  );
  if (tools[1]?.tool !== "run_command" || tools[1].error?.code !== "interrupted")
    return fail("中断的 run_command 应答 interrupted");
  if (resume.commandRuns !== 1)
    return fail(`中断的命令应只执行过 1 次，实际 ${resume.commandRuns} 次`);
  const fixes = resume.fileAfter.split(FIXED_TEXT).length - 1;
  if (fixes !== 1 || resume.fileAfter.includes("return a - b;"))
    return fail(`${BUGGY_FILE} 应恰好被修改一次`);
  if (resumed.status !== "completed" || resume.resumed?.exitCode !== 0)
    return fail(`恢复后的运行应完成，实际 ${resumed.status}（${resumed.code}）`);

  const loop = resultOf(run.loop);
  if (loop === undefined) return fail("循环那次运行的 --json 输出不是运行结果");
  evidence.push(`loop:${loop.status}/${loop.code},exit ${run.loop.exitCode}`);
  if (loop.code !== "loop_detected" || run.loop.exitCode !== 3)
    return fail(`A-B-A-B 循环应以 loop_detected 停下（退出码 3），实际 ${loop.code}`);

  const context = resultOf(run.context.run);
  if (context === undefined) return fail("上下文预算那次运行的 --json 输出不是运行结果");
  const over = run.context.requestTokens.filter((tokens) => tokens > CONTEXT_BUDGET);
  evidence.push(
    `context:${run.context.requestTokens.length} requests,${over.length} over ${CONTEXT_BUDGET} tokens,${context.status},artifacts ${run.context.artifacts >= 3 ? "≥3" : run.context.artifacts}`,
  );
  if (run.context.requestTokens.length !== 5) return fail("回环 API 应收到 5 个请求");
  if (over.length > 0)
    return fail(`有 ${over.length} 个请求超出上下文预算 ${CONTEXT_BUDGET} token`);
  if (context.status !== "completed") return fail(`上下文预算那次运行应完成，实际 ${context.code}`);
  if (run.context.artifacts < 3) return fail("三次大输出应各自完整地保存为 artifact");
  return passed(5, WEEK_05_SUMMARY, evidence);
}
