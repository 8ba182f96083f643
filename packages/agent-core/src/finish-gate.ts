import { z } from "zod";
import type { FinishDecision, RunExtension } from "./extension.ts";

/** Why a finish is not accepted (stable codes, docs/contracts.md §7). */
export type FinishRejectionReason =
  | "no_test_evidence"
  | "stale_test_evidence"
  | "tests_failing"
  | "changes_outside_allowed_paths";

/** A `run_tests` report whose runner's output was read: its counts. */
export interface CountedTestReport {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/**
 * A `run_tests` report with no counts (`report: "exit_code"`: a runner it cannot read):
 * the test command's exit status is the evidence. Exit 0 of the whole command is
 * "passed, counts unknown"; anything else, or a signal (`null`), is not passed.
 */
export interface ExitStatusTestReport {
  readonly passed: null;
  readonly failed: null;
  readonly skipped: null;
  readonly report: "exit_code";
  readonly exitCode: number | null;
}

/** What one `run_tests` call says: counts, or only its exit status. */
export type TestReport = CountedTestReport | ExitStatusTestReport;

/** The latest `run_tests` report and the workspace version it was taken at. */
export type TestEvidence = TestReport & { readonly version: string };

/** What a finish is judged on: the workspace as it is now, and the latest test report. */
export interface FinishEvidence {
  readonly startVersion: string;
  readonly endVersion: string;
  readonly tests: TestEvidence | null;
  /** Files added, removed or changed since the run started, on the real workspace. */
  readonly changedFiles: readonly string[];
}

/** The verdict on one finish proposal: no reasons means accepted. */
export interface FinishVerdict {
  readonly reasons: readonly FinishRejectionReason[];
  /** For the model, in Chinese: what is missing. Empty when accepted. */
  readonly message: string;
}

/**
 * Judges a finish under the `tests` gate. Accepted only when the latest test report was
 * taken at the workspace's current version and says `failed: 0, passed ≥ 1` (a report
 * without counts: the whole test command exited 0), and every changed file is allowed.
 * "Completed" is the system's conclusion, not the model's line.
 */
export function judgeFinish(
  evidence: FinishEvidence,
  isAllowed: (file: string) => boolean,
): FinishVerdict {
  const reasons: FinishRejectionReason[] = [];
  const lines: string[] = [];
  const { tests } = evidence;
  if (tests === null) {
    reasons.push("no_test_evidence");
    lines.push("还没有运行过测试：先调用 run_tests，测试通过后再提出完成。");
  } else if (tests.version !== evidence.endVersion) {
    reasons.push("stale_test_evidence");
    lines.push("上次测试之后工作区又被修改过，那次结果已经过期：请重新运行 run_tests。");
  } else if (tests.passed === null) {
    // No counts could be read: the exit status of the whole test command is the evidence.
    if (tests.exitCode !== 0) {
      reasons.push("tests_failing");
      lines.push(
        `最近一次测试命令${tests.exitCode === null ? "被信号终止" : `以退出码 ${tests.exitCode} 结束`}` +
          "（读不出测试个数，只能看退出码）：修好失败的测试并重新运行。",
      );
    }
  } else if (tests.failed > 0 || tests.passed < 1) {
    reasons.push("tests_failing");
    lines.push(
      `最近一次测试没有全部通过（通过 ${tests.passed}，失败 ${tests.failed}）：修好失败的测试并重新运行。`,
    );
  }
  const outside = evidence.changedFiles.filter((file) => !isAllowed(file));
  if (outside.length > 0) {
    reasons.push("changes_outside_allowed_paths");
    lines.push(`这些文件的改动不在允许的路径内：${outside.join("、")}。请撤销这些改动。`);
  }
  return { reasons, message: lines.join("\n") };
}

/** What the gate needs from the machine (agent-core does no I/O: the caller supplies it). */
export interface FinishGateOptions {
  /** The workspace now: its version and the files changed since the run started. */
  readonly inspect: (
    signal: AbortSignal,
  ) => Promise<{ readonly version: string; readonly changedFiles: readonly string[] }>;
  /**
   * The version right after a tool call, for its test report, asked when the gate next
   * judges (so another extension may record it after the gate saw the result). Default:
   * `inspect`'s at the call. A resumed run answers from its log here.
   */
  readonly versionAfter?: (callId: string, signal: AbortSignal) => Promise<string>;
  /** The run's start version (for the evidence). */
  readonly startVersion: string;
  /** True when an edit may touch `file` (`--allow-path`); every file when absent. */
  readonly isAllowed?: (file: string) => boolean;
  /** The tool whose reports count as test evidence; `run_tests` by default. */
  readonly testTool?: string;
  /** `false` (`--finish-gate none`): collect evidence, accept every finish. Default `true`. */
  readonly enforce?: boolean;
  /** The verdict on the evidence; `judgeFinish` by default (lesson 21 writes its own). */
  readonly judge?: (
    evidence: FinishEvidence,
    isAllowed: (file: string) => boolean,
  ) => FinishVerdict;
}

/** The gate as a run extension, with the evidence it last saw. */
export interface FinishGate extends RunExtension {
  /** The latest evidence: at the last finish proposal, or now (call `evidence()` after the run). */
  evidence(signal?: AbortSignal): Promise<FinishEvidence>;
  /** Seeds the latest test report (a resumed run's, from its log). */
  restoreTests(tests: TestEvidence | null): void;
}

/**
 * The finish gate (lesson 21): records every `run_tests` report with the workspace
 * version after it (`afterToolCall`), and judges each finish proposal on fresh evidence
 * (`onFinish`): a rejection goes back to the model as a `finish_rejected` message.
 */
export function createFinishGate(options: FinishGateOptions): FinishGate {
  const testTool = options.testTool ?? "run_tests";
  const isAllowed = options.isAllowed ?? (() => true);
  const enforce = options.enforce ?? true;
  const judge = options.judge ?? judgeFinish;
  let tests: TestEvidence | null = null;
  // A report whose version is asked of `versionAfter` when the gate next judges: the gate may
  // sit before the extension that records that version (it sees the tool's own result there,
  // before any later extension replaces it).
  let pending: { readonly report: TestReport; readonly callId: string } | null = null;
  const settled = async (signal: AbortSignal): Promise<TestEvidence | null> => {
    if (pending !== null && options.versionAfter !== undefined) {
      const { report, callId } = pending;
      pending = null;
      tests = { ...report, version: await options.versionAfter(callId, signal) };
    }
    return tests;
  };
  const evidence = async (signal = new AbortController().signal): Promise<FinishEvidence> => {
    const latest = await settled(signal);
    const now = await options.inspect(signal);
    return {
      startVersion: options.startVersion,
      endVersion: now.version,
      tests: latest,
      changedFiles: now.changedFiles,
    };
  };
  return {
    name: "finish-gate",
    async afterToolCall(call, result, signal) {
      if (call.tool !== testTool || !result.ok) return undefined;
      const report = readTestReport(result.value);
      if (report === undefined) return undefined;
      if (options.versionAfter !== undefined) {
        pending = { report, callId: call.callId };
        return undefined;
      }
      tests = { ...report, version: (await options.inspect(signal)).version };
      return undefined;
    },
    async onFinish(_proposal, signal): Promise<FinishDecision | undefined> {
      if (!enforce) return undefined;
      const verdict = judge(await evidence(signal), isAllowed);
      if (verdict.reasons.length === 0) return undefined;
      return { kind: "reject", reasons: verdict.reasons, message: verdict.message };
    },
    evidence,
    restoreTests(restored) {
      pending = null;
      tests = restored;
    },
  };
}

/** The counts of a `run_tests` report (docs/contracts.md §6). */
const CountedTestReportSchema = z.object({
  passed: z.number(),
  failed: z.number(),
  skipped: z.number().catch(0),
});

/** A `run_tests` report without counts: its exit status (`report: "exit_code"`). */
const ExitStatusTestReportSchema = z.object({
  passed: z.null(),
  report: z.literal("exit_code"),
  exitCode: z.int().nullable(),
});

/**
 * What a `run_tests` value counts as evidence: its counts, or, when its runner could not be
 * read, its exit status. Undefined for anything else (another tool's value, an error).
 */
export function readTestReport(value: unknown): TestReport | undefined {
  const counted = CountedTestReportSchema.safeParse(value);
  if (counted.success) return counted.data;
  const exitStatus = ExitStatusTestReportSchema.safeParse(value);
  if (!exitStatus.success) return undefined;
  return {
    passed: null,
    failed: null,
    skipped: null,
    report: "exit_code",
    exitCode: exitStatus.data.exitCode,
  };
}
