import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createIgnoredFilter } from "@coding-agent/tools";
import {
  changedPaths,
  snapshotFixture,
  snapshotWorkspace,
  type WorkspaceSnapshot,
  writeFixture,
} from "./fixture.ts";
import {
  type Grades,
  gradeDiffInScope,
  gradeForbiddenUntouched,
  gradeStatus,
  gradeTestsPass,
} from "./graders.ts";
import { runProcessGroup, tail } from "./process-group.ts";
import type { EvalTask } from "./task-file.ts";

/** How to start `coding-agent`: a program and the arguments before `run` (e.g. node and the bin). */
export interface AgentRunner {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /**
   * A fresh id for each run (given as `--run-id`): the harness knows where a run keeps its
   * records before it starts, so a run killed at its timeout or dead without a result can
   * still be read. Without it a run is only known by the result it prints.
   */
  readonly newRunId?: () => string;
}

/** Per-task timeout when neither the task (`timeoutMs`) nor `--timeout-ms` sets one. */
export const DEFAULT_TASK_TIMEOUT_MS = 120_000;

/** A harness error's status: the run has no status of its own. */
export const HARNESS_ERROR_STATUS = "error";

/** One row of the report (docs/contracts.md §7): `status`/`code` are the run's, or `error` + `timeout`/`crash`. */
export interface TaskResult {
  readonly id: string;
  /** Which of the task's trials this is (1..k); only in reports of `--trials k` with k > 1. */
  readonly trial?: number;
  readonly passed: boolean;
  readonly status: string;
  readonly code: string;
  readonly graders: Grades;
  readonly durationMs: number;
  /** The run's id under `$CODING_AGENT_HOME/runs/` (absent when no run result came back). */
  readonly runId?: string;
  /** What went wrong in the harness (a timeout, a crash's stderr). */
  readonly error?: string;
}

/**
 * Runs one task from start to end: a fresh temporary folder with the fixture copied in,
 * `coding-agent run` as a child process (`--approval auto` unless the task's args say
 * otherwise) killed at the task's timeout, the four graders on the final workspace, and the
 * folder removed whatever happened.
 */
export async function runTask(
  task: EvalTask,
  options: {
    readonly runner: AgentRunner;
    readonly signal: AbortSignal;
    readonly defaultTimeoutMs?: number;
    /**
     * Keep the trial's folder here (`--keep-workspaces`): emptied first, left in place
     * afterwards with the final workspace in `<keepDir>/workspace`, for a later regrade.
     */
    readonly keepDir?: string;
    /** How the graders learn what changed; `changedPaths` (added, modified, removed) by default. */
    readonly diff?: (before: WorkspaceSnapshot, after: WorkspaceSnapshot) => readonly string[];
  },
): Promise<TaskResult> {
  const started = performance.now();
  const timeoutMs = task.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
  const keepDir = options.keepDir;
  if (keepDir !== undefined) {
    // A kept folder may hold a killed earlier attempt of this trial: it starts empty.
    await rm(keepDir, { recursive: true, force: true });
    await mkdir(keepDir, { recursive: true });
  }
  const dir = keepDir ?? (await mkdtemp(path.join(os.tmpdir(), "coding-agent-eval-")));
  try {
    const workspace = workspaceIn(dir);
    await writeFixture(task.files, workspace);
    const scriptPath = path.join(dir, "script.json");
    if (task.script !== undefined) await writeFile(scriptPath, JSON.stringify(task.script));
    const approvalGiven = task.args.some(
      (arg) => arg === "--approval" || arg.startsWith("--approval="),
    );
    const givenRunId = options.runner.newRunId?.();
    const ran = await runProcessGroup({
      command: options.runner.command,
      args: [
        ...options.runner.args,
        "run",
        task.goal,
        "--workspace",
        workspace,
        "--json",
        "--test-command",
        task.testCommand,
        ...(task.script === undefined ? [] : ["--script", scriptPath]),
        ...(approvalGiven ? [] : ["--approval", "auto"]),
        ...(givenRunId === undefined ? [] : ["--run-id", givenRunId]),
        ...task.args,
      ],
      cwd: workspace,
      timeoutMs,
      signal: options.signal,
      ...(options.runner.env === undefined ? {} : { env: options.runner.env }),
    });
    const run = runOutcome(ran, timeoutMs, givenRunId);
    const diff = options.diff ?? changedPaths;
    const changed = diff(snapshotFixture(task.files), await snapshotWorkspace(workspace));
    const graders = await gradeWorkspace({
      task,
      workspace,
      changed,
      run,
      timeoutMs,
      signal: options.signal,
    });
    return {
      id: task.id,
      passed: Object.values(graders).every((verdict) => verdict.pass),
      status: run.status,
      code: run.code,
      graders,
      durationMs: Math.round(performance.now() - started),
      ...(run.runId === undefined ? {} : { runId: run.runId }),
      ...(run.error === undefined ? {} : { error: run.error }),
    };
  } catch (error) {
    // The workspace could not be made or read (the agent removed it, the disk is full):
    // this task is a crash, the suite goes on.
    const message = error instanceof Error ? error.message : String(error);
    return crashedTask(task.id, message, Math.round(performance.now() - started));
  } finally {
    if (keepDir === undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** Where a trial's folder holds its workspace (the run's `--workspace`). */
export function workspaceIn(trialDir: string): string {
  return path.join(trialDir, "workspace");
}

/**
 * The four graders on a final workspace: what a trial runs after its agent, and what a
 * regrade runs again on a kept workspace (no agent, no model).
 */
export async function gradeWorkspace(options: {
  readonly task: EvalTask;
  readonly workspace: string;
  readonly changed: readonly string[];
  readonly run: { readonly status: string; readonly code: string };
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}): Promise<Grades> {
  const { task, changed, run } = options;
  // Build output the workspace ignores (its .gitignore, or outside git the usual build
  // folders: __pycache__/, target/…) is not the agent's change to judge against allowPaths:
  // a test run wrote it. Forbidden paths are judged on every change: an ignored file can
  // still be one the task forbids (a .env, a lock file).
  const userChanges = await createIgnoredFilter(options.workspace)(changed);
  return {
    tests_pass: await gradeTestsPass({
      testCommand: task.testCommand,
      workspace: options.workspace,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    }),
    diff_in_scope: gradeDiffInScope(task, userChanges),
    forbidden_untouched: gradeForbiddenUntouched(task, changed),
    status: gradeStatus(task, run.status, run.code),
  };
}

/** The result of a task the harness could not run or grade: every grader fails, saying why. */
export function crashedTask(id: string, message: string, durationMs: number): TaskResult {
  const failed = { pass: false, detail: `没有结果：${message}` };
  return {
    id,
    passed: false,
    status: HARNESS_ERROR_STATUS,
    code: "crash",
    graders: {
      tests_pass: failed,
      diff_in_scope: failed,
      forbidden_untouched: failed,
      status: failed,
    },
    durationMs,
    error: message,
  };
}

/**
 * A run's status, code and id as the harness reports them. A run killed at its timeout (it
 * may print the result of its cancel first) or gone without a result keeps the id it was
 * given, so what it left can still be read; a result it printed names its own run.
 */
function runOutcome(
  ran: Awaited<ReturnType<typeof runProcessGroup>>,
  timeoutMs: number,
  givenRunId: string | undefined,
): { status: string; code: string; runId?: string; error?: string } {
  switch (ran.kind) {
    case "timeout": {
      const runId = parseRunResult(ran.stdout)?.runId ?? givenRunId;
      return {
        status: HARNESS_ERROR_STATUS,
        code: "timeout",
        ...(runId === undefined ? {} : { runId }),
        error: `${timeoutMs} 毫秒内没有结束`,
      };
    }
    case "cancelled":
      return { status: "cancelled", code: "cancelled" };
    case "spawn_error":
      return { status: HARNESS_ERROR_STATUS, code: "crash", error: ran.message };
    case "exited": {
      const result = parseRunResult(ran.stdout);
      if (result === undefined)
        return {
          status: HARNESS_ERROR_STATUS,
          code: "crash",
          ...(givenRunId === undefined ? {} : { runId: givenRunId }),
          error: `coding-agent 退出码 ${ran.code ?? "无（被信号杀掉）"}，没有输出运行结果：${tail(ran.stderr)}`,
        };
      return result;
    }
    default: {
      const unreachable: never = ran;
      throw new TypeError(`unhandled outcome ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The `--json` RunResult's status, code and runId; undefined when stdout is not one. */
function parseRunResult(
  stdout: string,
): { status: string; code: string; runId?: string } | undefined {
  try {
    const value = JSON.parse(stdout) as { status?: unknown; code?: unknown; runId?: unknown };
    if (typeof value.status !== "string" || typeof value.code !== "string") return undefined;
    return {
      status: value.status,
      code: value.code,
      ...(typeof value.runId === "string" ? { runId: value.runId } : {}),
    };
  } catch {
    return undefined;
  }
}
