import { createRedactor, type Redactor } from "@coding-agent/agent-core";
import { createPathAllowance } from "@coding-agent/tools";
import picomatch from "picomatch";
import { runProcessGroup, tail } from "./process-group.ts";
import type { EvalTask } from "./task-file.ts";

/** The four graders of docs/contracts.md §7, in the order a report shows them. */
export const GRADER_NAMES = [
  "tests_pass",
  "diff_in_scope",
  "forbidden_untouched",
  "status",
] as const;
export type GraderName = (typeof GRADER_NAMES)[number];

/** One grader's verdict; `detail` says why in a line or a few (Chinese). */
export interface GraderVerdict {
  readonly pass: boolean;
  readonly detail: string;
}

export type Grades = Readonly<Record<GraderName, GraderVerdict>>;

/**
 * `tests_pass`: the grader runs the task's test command itself in the final workspace,
 * whatever the agent claimed; exit 0 passes.
 */
export async function gradeTestsPass(options: {
  readonly testCommand: string;
  readonly workspace: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /**
   * Masks the test output quoted in `detail`, which every report carries (terminal, JSON,
   * JUnit, HTML): a test may print a token. The usual secret shapes and this process's
   * secret-named variables by default.
   */
  readonly redact?: Redactor;
}): Promise<GraderVerdict> {
  const redact = options.redact ?? createRedactor({ env: process.env });
  const ran = await runProcessGroup({
    command: "sh",
    args: ["-c", options.testCommand],
    cwd: options.workspace,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  switch (ran.kind) {
    case "exited":
      return ran.code === 0
        ? { pass: true, detail: `${options.testCommand}：退出码 0` }
        : {
            pass: false,
            detail: redact(
              `${options.testCommand}：退出码 ${ran.code}\n${tail(`${ran.stdout}\n${ran.stderr}`)}`,
            ),
          };
    case "timeout":
      return { pass: false, detail: `${options.testCommand}：${options.timeoutMs} 毫秒内没有结束` };
    case "cancelled":
      return { pass: false, detail: "已取消" };
    case "spawn_error":
      return { pass: false, detail: `无法运行测试命令：${ran.message}` };
    default: {
      const unreachable: never = ran;
      throw new TypeError(`unhandled outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

/** `diff_in_scope`: every changed path (added, modified, removed) is inside the task's `allowPaths`. */
export function gradeDiffInScope(
  task: Pick<EvalTask, "allowPaths">,
  changed: readonly string[],
): GraderVerdict {
  if (task.allowPaths.length === 0)
    return { pass: true, detail: `没有限定 allowPaths；改动 ${changed.length} 个文件` };
  const allowed = createPathAllowance(task.allowPaths);
  const outside = changed.filter((file) => !allowed(file));
  return outside.length === 0
    ? { pass: true, detail: `改动 ${changed.length} 个文件，都在 allowPaths 内` }
    : { pass: false, detail: `allowPaths 之外的改动：${outside.join(", ")}` };
}

/**
 * `forbidden_untouched`: every path matching `forbiddenPaths` is byte-identical to the
 * fixture (present in both with the same bytes, or absent from both). A glob naming a
 * folder covers everything below it, as `--allow-path` does.
 */
export function gradeForbiddenUntouched(
  task: Pick<EvalTask, "forbiddenPaths">,
  changed: readonly string[],
): GraderVerdict {
  if (task.forbiddenPaths.length === 0) return { pass: true, detail: "没有 forbiddenPaths" };
  const patterns = task.forbiddenPaths.flatMap((glob) => {
    const trimmed = glob.replace(/\/+$/, "");
    return [trimmed, `${trimmed}/**`];
  });
  const forbidden = picomatch(patterns, { dot: true });
  const touched = changed.filter((file) => forbidden(file));
  return touched.length === 0
    ? { pass: true, detail: "forbiddenPaths 里的文件与夹具逐字节相同" }
    : { pass: false, detail: `改动了禁止的文件：${touched.join(", ")}` };
}

/** `status`: the run ended as the task expects (`expect.status`, default `completed`). */
export function gradeStatus(
  task: Pick<EvalTask, "expectStatus">,
  status: string,
  code: string,
): GraderVerdict {
  return status === task.expectStatus
    ? { pass: true, detail: `状态 ${status}（${code}）` }
    : { pass: false, detail: `期望 ${task.expectStatus}，实际 ${status}（${code}）` };
}
