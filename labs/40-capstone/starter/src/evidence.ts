import type { StateEvent, TraceLine } from "@coding-agent/cli";
import type { EvalReport, FileChange } from "@coding-agent/eval";

/** 完成验证门留在结果里的证据（docs/contracts.md §7，第 21 课）。 */
export interface FinishEvidence {
  readonly startVersion: string;
  readonly endVersion: string;
  /** 门认可的那次测试；没有测试证据（比如 --finish-gate none）时是 null。 */
  readonly tests: {
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
    readonly version: string;
  } | null;
  readonly changedFiles: readonly string[];
}

/** `coding-agent run --json` 的结果里本课读到的字段。 */
export interface RunJson {
  readonly status: string;
  readonly code: string;
  readonly runId: string;
  readonly evidence: FinishEvidence | null;
}

/**
 * 补丁里的一个文件（path 相对工作区，change 是 added、modified 或 removed）：最终工作区和
 * 夹具仓库逐字节比较得出（@coding-agent/eval 的 diffSnapshots），不是工具的记录。
 */
export type PatchEntry = FileChange;

/** 一次结业运行留下的全部证据。 */
export interface CapstoneEvidence {
  /** 评测任务的 id：评测报告里属于这次修复的那一行。 */
  readonly taskId: string;
  /** 允许修改的路径（任务的 allowPaths，glob）。 */
  readonly allowPaths: readonly string[];
  /** `coding-agent run --json` 的结果。 */
  readonly run: RunJson;
  /** 这次运行的 state.jsonl（第 22 课）。 */
  readonly state: readonly StateEvent[];
  /** 这次运行的 trace.jsonl（第 26 课）：agent-core 的事件，加上 CLI 写文件时记下的 runId。 */
  readonly trace: readonly TraceLine[];
  /** 最终工作区与夹具仓库的差别。 */
  readonly patch: readonly PatchEntry[];
  /** `coding-agent eval --json --baseline` 的报告（第 31–35 课）。 */
  readonly eval: EvalReport;
}

/** 验收的六项检查。 */
export type CapstoneCheck =
  | "finished"
  | "finish_gate"
  | "tests_after_change"
  | "trace"
  | "scope"
  | "eval";

/** 一条不通过的理由：哪一项检查，以及给人看的中文说明。 */
export interface CapstoneReason {
  readonly check: CapstoneCheck;
  readonly message: string;
}

/** 验收结论：通过时没有理由；不通过时列出每一条理由。 */
export type CapstoneVerdict =
  | { readonly accepted: true; readonly reasons: readonly [] }
  | { readonly accepted: false; readonly reasons: readonly CapstoneReason[] };
