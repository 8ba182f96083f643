import { truncate } from "node:fs/promises";
import path from "node:path";
import { runAgent } from "@coding-agent/agent-core";
import type { RunCommand } from "./args.ts";
import { assembleParentRun } from "./assembly/parent-run.ts";
import { prepareRunInputs, startedSpec } from "./assembly/run-inputs.ts";
import {
  openRunRecords,
  type ResumedRun,
  type RunOwner,
  readStartFiles,
  traceFailedMessage,
} from "./assembly/run-records.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { prepareMcp } from "./mcp/index.ts";
import type { CliEnv } from "./model-provider.ts";
import { printRunEnd, printRunResult } from "./print-result.ts";
import { codingAgentHome, newRunId, runDirOf } from "./run-files.ts";
import { parseRecordedSpec, type RunSpec } from "./run-spec.ts";
import { readStateLog } from "./state/log.ts";
import { planResume } from "./state/resume.ts";
import { acquireRunLock } from "./state/run-lock.ts";
import { withChildSpend } from "./subagents/spend.ts";

/** `coding-agent run`: a new run with its own folder under `$CODING_AGENT_HOME/runs/`. */
export async function startRun(
  command: RunCommand,
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv,
): Promise<number> {
  // The new run's folder is locked as soon as it exists (see openRunRecords): a resume of
  // it while it runs is refused.
  const owner: RunOwner = {};
  try {
    const { spec, json, runId } = command;
    return await execute({ spec, json, io, signal, env, resume: undefined, owner, runId });
  } finally {
    await owner.lock?.release();
  }
}

/** `coding-agent resume <runId>`: continues an unfinished run from its state log. */
export async function resumeRun(
  runId: string,
  json: boolean,
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv,
): Promise<number> {
  const runDir = runDirOf(codingAgentHome(env), runId);
  // One owner per run: taken before the log is read (or a torn line cut off), so a live
  // run's log is never touched. A folder that cannot hold a lock is judged by its log below.
  const owned = await acquireRunLock(runDir);
  if (!owned.ok && owned.reason === "held") {
    io.stderr(
      `无法继续运行 ${runId}：它正由进程 ${owned.pid} 运行或继续，同一个运行同时只能有一个进程（等那个进程结束后再 resume）\n`,
    );
    return EXIT_CODES.usage;
  }
  try {
    const resume = await readResume(runId, runDir, io);
    if (!resume.ok) return EXIT_CODES.usage;
    return await execute({ spec: resume.spec, json, io, signal, env, resume: resume.run });
  } finally {
    if (owned.ok) await owned.lock.release();
  }
}

/** An unfinished run's plan and spec from its log, or a refusal printed (exit 2). */
async function readResume(runId: string, runDir: string, io: CliIo) {
  const file = path.join(runDir, "state.jsonl");
  const read = await readStateLog(file);
  if (!read.ok) {
    io.stderr(`无法继续运行 ${runId}：${read.message}\n`);
    return { ok: false } as const;
  }
  if (read.warning !== undefined) io.stderr(`警告：${read.warning}\n`);
  const planned = planResume(read.events);
  if (!planned.ok) {
    io.stderr(
      planned.finished
        ? `运行 ${runId} 已经结束（${planned.status}，${planned.code}），不能继续\n`
        : `无法继续运行 ${runId}：${planned.message}\n`,
    );
    return { ok: false } as const;
  }
  const { plan } = planned;
  const recorded = parseRecordedSpec(plan.started.options);
  if (!recorded.ok) {
    io.stderr(`无法继续运行 ${runId}：state.jsonl 的 ${recorded.message}\n`);
    return { ok: false } as const;
  }
  // A torn last line is cut off before anything is appended after it.
  await truncate(file, read.bytes);
  const start = await readStartFiles(runDir, plan.started.startVersion);
  const run: ResumedRun = { runId, runDir, plan, start };
  return { ok: true, spec: recorded.spec, run } as const;
}

interface Session {
  readonly io: CliIo;
  readonly signal: AbortSignal;
  readonly env: CliEnv;
  readonly spec: RunSpec;
  /** `--json`: of this command (a resume's own, not the recorded run's). */
  readonly json: boolean;
  /** Where a new run keeps the lock it takes on its folder (a resume holds its own). */
  readonly owner?: RunOwner;
  readonly resume: ResumedRun | undefined;
  /** A new run's id given with `--run-id` (its folder must not exist yet); generated otherwise. */
  readonly runId?: string | undefined;
}

/** A run or a resume: inputs checked, records opened, the run assembled, run and reported. */
async function execute(session: Session): Promise<number> {
  const { json, io, signal, env, resume } = session;
  const runId = resume?.runId ?? session.runId ?? newRunId();
  const prepared = await prepareRunInputs(session.spec, {
    io,
    env,
    ...(resume === undefined ? {} : { plan: resume.plan }),
    artifactsDir: path.join(runDirOf(codingAgentHome(env), runId), "artifacts"),
  });
  if (!prepared.ok) {
    io.stderr(`${prepared.message}\n`);
    return EXIT_CODES.usage;
  }
  const { inputs } = prepared;
  const workspace = inputs.tools.workspaceRoot;
  // Started before the log opens, so run_started records their tools.
  const servers = await prepareMcp({
    servers: inputs.mcpServers,
    workspace,
    approval: session.spec.approval,
    ...(io.approver === undefined ? {} : { approver: io.approver }),
    allowTools: session.spec.allowTools ?? [],
    redact: inputs.redact,
    warn: (line) => io.stderr(line),
    signal,
  });
  const spec =
    resume === undefined ? startedSpec(session.spec, inputs, servers?.record) : session.spec;
  const opened = await openRunRecords({
    ...session,
    spec,
    workspace,
    redact: inputs.redact,
    runId,
  });
  if (!opened.ok) {
    await servers?.close();
    const { result, runDir } = opened;
    return printRunResult(io, { json, result, ...(runDir === undefined ? {} : { runId, runDir }) });
  }
  const { records } = opened;
  const { run, ...parent } = await assembleParentRun({
    spec,
    inputs,
    records,
    resume,
    io,
    env,
    signal,
    servers,
  });
  io.stderr(`coding-agent：开始运行（${inputs.model.label}，Ctrl-C 取消）\n`);
  const result = await runAgent(
    spec.goal,
    run.provider,
    run.tools,
    run.limits,
    signal,
    run.options,
  );
  // Every child, its processes and its copy, and every server process end with the run.
  await parent.subagents?.close();
  await servers?.close();
  await records.traced.end();
  if (result.code === "trace_failed")
    io.stderr(traceFailedMessage(records.traced.file, result.reason));
  const logged = await parent.recorder.finished(result);
  await records.log.close().catch(() => {});
  // A finished run is never resumed: no edit of it is left to settle.
  if (logged) await records.journal.clear().catch(() => undefined);
  if (!logged) io.stderr(`警告：${parent.recorder.failure ?? "状态日志写入失败"}\n`);
  printRunEnd(io, inputs.tools.edits.diff().files, runId);
  // The run's usage and cost are its own model calls' and every child's (docs/contracts.md §7 "Cost").
  const whole =
    parent.subagents === undefined ? result : withChildSpend(result, parent.subagents.spent());
  const evidence = await parent.gate.evidence();
  return printRunResult(io, { json, result: whole, evidence, runId, runDir: records.runDir });
}
