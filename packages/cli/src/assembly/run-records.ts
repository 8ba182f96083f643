import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Redactor, RunResult } from "@coding-agent/agent-core";
import type { WorkspaceState } from "@coding-agent/tools";
import { z } from "zod";
import type { CliIo } from "../cli-io.ts";
import type { CliEnv } from "../model-provider.ts";
import { codingAgentHome, createRunDir } from "../run-files.ts";
import type { RunSpec } from "../run-spec.ts";
import { createEditJournal, type EditJournal } from "../state/edit-journal.ts";
import { openStateLog, type StateLog } from "../state/log.ts";
import { type ResumePlan, removeCrashLeftovers } from "../state/resume.ts";
import { acquireRunLock, type RunLock } from "../state/run-lock.ts";
import { createWorkspaceTracker, type WorkspaceTracker } from "../state/workspace-tracker.ts";
import { openRunTrace, type RunTrace, TRACE_FILE } from "../trace/run-trace.ts";

/** The start state of a run's workspace, beside its state log (a resume counts changes from it). */
const START_FILES = "start-files.json";

/** A resumed run: its folder, its log's plan and the workspace as it started. */
export interface ResumedRun {
  readonly runId: string;
  readonly runDir: string;
  readonly plan: ResumePlan;
  readonly start: WorkspaceState | undefined;
}

/** The lock a run holds while it runs (docs/contracts.md §8 "One owner per run"). */
export interface RunOwner {
  lock?: RunLock;
}

/** A run's records, open: its folder, state log, edit journal, workspace tracker and trace. */
export interface RunRecords {
  readonly runId: string;
  readonly runDir: string;
  readonly log: StateLog;
  readonly journal: EditJournal;
  readonly tracker: WorkspaceTracker;
  readonly traced: RunTrace;
}

/** What opening the records needs. */
export interface OpenRecordsOptions {
  /** The spec as `run_started` records it (a fresh run's), with the workspace's real path. */
  readonly spec: RunSpec;
  readonly workspace: string;
  readonly redact: Redactor;
  readonly io: CliIo;
  readonly env: CliEnv;
  readonly runId: string;
  readonly resume: ResumedRun | undefined;
  /** Where a new run keeps the lock it takes on its folder (a resume holds its own). */
  readonly owner?: RunOwner;
}

/**
 * Opens a run's records: a new run's folder (locked at once), `run_started` and the start
 * files; a resume's `resumed` line after its crash leftovers are removed; then the trace. A
 * record that cannot be written is a result (`state_failed`, `trace_failed`), not a crash.
 */
export async function openRunRecords(
  options: OpenRecordsOptions,
): Promise<
  | { readonly ok: true; readonly records: RunRecords }
  | { readonly ok: false; readonly result: RunResult; readonly runDir?: string }
> {
  const { io, resume, runId, workspace } = options;
  const files = await openRunFiles(options).catch((error: Error) => error);
  if (files instanceof Error)
    return { ok: false, result: stateFailed(`运行目录无法写入：${files.message}`) };
  const { runDir, log } = files;
  if (resume !== undefined) {
    // Before the workspace is read: a killed write's temporary file is no change of the run's.
    const removed = await removeCrashLeftovers(resume.plan, workspace);
    if (removed.length > 0)
      io.stderr(`coding-agent：删除了中断的写入留下的临时文件 ${removed.join("、")}\n`);
  }
  const journal = createEditJournal(runDir);
  const tracker = await createWorkspaceTracker(workspace, {
    ...(resume?.start === undefined ? {} : { start: resume.start }),
    ...(resume === undefined ? {} : { recorded: resume.plan.versions }),
  });
  const started = await recordStart(options, runDir, log, tracker);
  if (started !== undefined) {
    await log.close().catch(() => {});
    return { ok: false, result: stateFailed(`状态日志无法写入：${started.message}`), runDir };
  }
  const traces = await openRunTrace({
    runDir,
    runId,
    redact: options.redact,
    env: options.env,
    providerName: options.spec.provider.name,
    model: options.spec.provider.model,
    warn: (message) => io.stderr(`警告：${message}\n`),
    ...(io.traceWriter === undefined ? {} : { writer: io.traceWriter }),
    ...(resume === undefined
      ? {}
      : {
          resume: { startedAt: resume.plan.started.startedAt, steps: resume.plan.replies.length },
        }),
  });
  if (!traces.ok) {
    await log.close().catch(() => {});
    const failed = stateFailed(traces.message, "trace_failed");
    io.stderr(traceFailedMessage(path.join(runDir, TRACE_FILE), failed.reason));
    return { ok: false, result: failed, runDir };
  }
  return { ok: true, records: { runId, runDir, log, journal, tracker, traced: traces.trace } };
}

/** A new run's `run_started` and start files, or a resume's `resumed`; the error of a failed write. */
async function recordStart(
  options: OpenRecordsOptions,
  runDir: string,
  log: StateLog,
  tracker: WorkspaceTracker,
): Promise<Error | undefined> {
  const { resume, spec, runId } = options;
  if (resume !== undefined) {
    await log.append({ type: "resumed", at: new Date().toISOString(), fromSeq: log.nextSeq - 1 });
    options.io.stderr(
      `coding-agent：继续运行 ${runId}（已记录 ${resume.plan.replies.length} 步）\n`,
    );
    return undefined;
  }
  const startFiles = JSON.stringify(Object.fromEntries(tracker.start.files));
  const written = await Promise.all([
    writeFile(path.join(runDir, START_FILES), startFiles, { mode: 0o600 }),
    log.append(
      {
        type: "run_started",
        runId,
        startedAt: new Date().toISOString(),
        goal: spec.goal,
        workspace: options.workspace,
        options: spec,
        startVersion: tracker.start.version,
      },
      { sync: true },
    ),
  ]).catch((error: Error) => error);
  return written instanceof Error ? written : undefined;
}

/** The run's folder and its state log (appended to, for a resume). */
async function openRunFiles(
  options: OpenRecordsOptions,
): Promise<{ readonly runDir: string; readonly log: StateLog }> {
  const { resume, owner } = options;
  const runDir =
    resume?.runDir ?? (await createRunDir(codingAgentHome(options.env), options.runId));
  if (resume === undefined && owner !== undefined) {
    const taken = await acquireRunLock(runDir);
    if (!taken.ok)
      throw new Error(taken.reason === "held" ? `已被进程 ${taken.pid} 占用` : taken.message);
    owner.lock = taken.lock;
  }
  const log = await openStateLog(path.join(runDir, "state.jsonl"), {
    redact: options.redact,
    ...(resume === undefined ? {} : { nextSeq: resume.plan.nextSeq }),
  });
  return { runDir, log };
}

const StartFilesSchema = z.record(z.string(), z.string());

/** The workspace as the run started (undefined when its file is missing or not what was written). */
export async function readStartFiles(
  runDir: string,
  version: string,
): Promise<WorkspaceState | undefined> {
  try {
    const text = await readFile(path.join(runDir, START_FILES), "utf8");
    const files = StartFilesSchema.safeParse(JSON.parse(text));
    return files.success ? { version, files: new Map(Object.entries(files.data)) } : undefined;
  } catch {
    return undefined;
  }
}

/** The highest number of a child folder under `<runDir>/subagents/` (0 when there is none). */
export async function lastChildIndex(runDir: string): Promise<number> {
  const names = await readdir(path.join(runDir, "subagents")).catch(() => [] as string[]);
  return names.reduce(
    (last, name) => (/^\d+$/.test(name) ? Math.max(last, Number(name)) : last),
    0,
  );
}

/** A run that could not keep its records: it did nothing. */
export function stateFailed(
  reason: string,
  code: "state_failed" | "trace_failed" = "state_failed",
): RunResult {
  return {
    status: "failed",
    code,
    reason,
    summary: reason,
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: null,
    messages: [],
  };
}

/** The stderr line of a run stopped for its trace (exit 1). */
export function traceFailedMessage(file: string, reason: string): string {
  return `错误：轨迹文件 ${file} 写入失败，运行已停止（failed，trace_failed）：${reason}\n`;
}
