import { failed, jsonOrUndefined, passed, type Verdict } from "@bootcamp/checkpoint-shared";
import { z } from "zod";

/** What the week-4 checkpoint must prove, in its own words. */
export const WEEK_04_SUMMARY =
  "Agent 在测试失败的仓库里运行测试、读取文件、带 hash 编辑、再次运行测试全部通过；两文件 apply_edits 第二处失败时两个文件都逐字节不变";

/** The file with the bug, and the test file, relative to the fixture repository. */
export const BUGGY_FILE = "src/sum.js";
export const TEST_FILE = "test/sum.test.js";

/** One `coding-agent run` on a copy of the fixture: what it printed, the files' sha256 before and after. */
export interface RepoRun {
  readonly exitCode: number;
  /** The CLI's `--json` output. */
  readonly stdout: string;
  readonly before: Readonly<Record<string, string>>;
  readonly after: Readonly<Record<string, string>>;
}

/** The checkpoint's two runs: the fix, and the failing transaction. */
export interface Week04Run {
  readonly fix: RepoRun;
  readonly transaction: RepoRun;
}

/** The parts of the CLI's `RunResult` JSON the verdict reads (checked: it comes from a process boundary). */
const RunJsonSchema = z.object({
  status: z.string(),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      callId: z.string().optional(),
      tool: z.string().optional(),
      input: z.record(z.string(), z.unknown()).optional(),
      ok: z.boolean().optional(),
      content: z.string().optional(),
      error: z.object({ code: z.string() }).optional(),
    }),
  ),
});

/** One tool call of a run: its input, and its value or error code. */
interface Call {
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly value: Record<string, unknown> | undefined;
  readonly errorCode: string | undefined;
}

/**
 * Judges the week-4 runs. Every number in the evidence is read from the runs' own
 * tool results (test counts, the edited path, the diff's lines) or from the files'
 * bytes; each check compares one of them with what must hold.
 */
export function judgeWeek04(run: Week04Run): Verdict<4> {
  const fixCalls = callsOf(run.fix.stdout);
  const txCalls = callsOf(run.transaction.stdout);
  const evidence = [
    ...(fixCalls ?? []).map(describeCall),
    `fix exit:${run.fix.exitCode}`,
    ...(txCalls ?? []).map(describeCall),
    `unchanged:${[BUGGY_FILE, TEST_FILE].filter((f) => isUnchanged(run.transaction, f)).join(",")}`,
  ];
  const fail = (reason: string) => failed(4, WEEK_04_SUMMARY, evidence, reason);
  if (fixCalls === undefined || txCalls === undefined)
    return fail("coding-agent run --json 的输出不是 RunResult");

  const [testsBefore, read, edit, testsAfter] = fixCalls;
  if (
    testsBefore?.tool !== "run_tests" ||
    !isCount(testsBefore.value?.failed) ||
    testsBefore.value.failed < 1
  )
    return fail("第一次 run_tests 应报告至少 1 个失败的测试");
  if (read?.tool !== "read_file" || typeof read.value?.hash !== "string")
    return fail(`read_file ${BUGGY_FILE} 没有返回 hash`);
  if (edit?.tool !== "edit_file" || edit.value === undefined)
    return fail(`edit_file 没有成功：${edit?.errorCode ?? "没有调用"}`);
  if (edit.input.expectedHash !== read.value.hash)
    return fail("edit_file 的 expectedHash 不是 read_file 读到的 hash");
  if (edit.value.path !== BUGGY_FILE || edit.value.hash !== run.fix.after[BUGGY_FILE])
    return fail(`edit_file 报告的路径或新 hash 与磁盘上的 ${BUGGY_FILE} 不一致`);
  if (
    testsAfter?.tool !== "run_tests" ||
    testsAfter.value?.failed !== 0 ||
    !isCount(testsAfter.value.passed) ||
    testsAfter.value.passed < 1
  )
    return fail("编辑之后 run_tests 应全部通过");
  if (run.fix.exitCode !== 0) return fail(`修复运行的退出码应为 0，实际 ${run.fix.exitCode}`);

  const [transaction] = txCalls;
  if (transaction?.tool !== "apply_edits" || transaction.errorCode === undefined)
    return fail("第二处编辑无法应用时 apply_edits 应返回错误");
  for (const file of [BUGGY_FILE, TEST_FILE]) {
    if (!isUnchanged(run.transaction, file))
      return fail(`apply_edits 失败后 ${file} 被改动了：应全部回滚`);
  }
  return passed(4, WEEK_04_SUMMARY, evidence);
}

/** The tool calls of a `--json` run in order, or undefined when it is not a RunResult. */
function callsOf(stdout: string): Call[] | undefined {
  const parsed = RunJsonSchema.safeParse(jsonOrUndefined(stdout));
  if (!parsed.success) return undefined;
  const { messages } = parsed.data;
  return messages
    .filter((message) => message.role === "tool")
    .map((result) => {
      const request = messages.find((m) => m.role === "assistant" && m.callId === result.callId);
      const value = result.ok === true ? jsonOrUndefined(result.content ?? "") : undefined;
      return {
        tool: result.tool ?? "",
        input: request?.input ?? {},
        value:
          typeof value === "object" && value !== null
            ? (value as Record<string, unknown>)
            : undefined,
        errorCode: result.ok === true ? undefined : (result.error?.code ?? "error"),
      };
    });
}

/** One evidence line: the tool, what it was about, and what came back. */
function describeCall(call: Call): string {
  if (call.value === undefined) return `${call.tool}→${call.errorCode ?? "error"}`;
  switch (call.tool) {
    case "run_tests":
      return `run_tests→passed=${String(call.value.passed)},failed=${String(call.value.failed)}`;
    case "read_file":
      return `read_file:${String(call.input.path)}→totalLines=${String(call.value.totalLines)}`;
    case "edit_file": {
      const lines = String(call.value.diff).split("\n");
      const added = lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length;
      const removed = lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length;
      return `edit_file:${String(call.value.path)}→+${added} -${removed}`;
    }
    default:
      return `${call.tool}→ok`;
  }
}

/** True when `file` was read before and after the run, and its bytes hash the same. */
function isUnchanged(run: RepoRun, file: string): boolean {
  const before = run.before[file];
  return before !== undefined && before === run.after[file];
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
