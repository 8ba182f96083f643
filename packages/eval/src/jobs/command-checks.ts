import { EVAL_EXIT_CODES } from "../eval-exit-codes.ts";
import { canReach, type RedisAddress } from "../queue.ts";
import { type EvalIo, readGateBaseline } from "../report-output.ts";
import type { JobFolder } from "./job-folder.ts";
import { lockJob } from "./job-lock.ts";

/** What a report is gated on, once read: the baseline's tasks, or none. */
export type GateBaseline = Extract<Awaited<ReturnType<typeof readGateBaseline>>, { ok: true }>;

/** The baseline the gate compares with; when it cannot be read, the reason and exit 2. */
export async function baselineOrExit(
  command: Parameters<typeof readGateBaseline>[0],
  io: EvalIo,
): Promise<GateBaseline | number> {
  const baseline = await readGateBaseline(command);
  if (baseline.ok) return baseline;
  io.stderr(`${baseline.message}\n`);
  return EVAL_EXIT_CODES.usage;
}

/** Exit 1 naming the address when a queue is asked for and Redis cannot be reached. */
export async function queueUnreachable(
  queue: RedisAddress | undefined,
  io: EvalIo,
): Promise<number | undefined> {
  if (queue === undefined || (await canReach(queue))) return undefined;
  io.stderr(`连不上 Redis：${queue.host}:${queue.port}\n`);
  return EVAL_EXIT_CODES.regressionOrHarnessError;
}

/**
 * Runs `work` holding the job's lock; a job another live process holds is exit 2, naming
 * that process (a trial must not run in both).
 */
export async function whileLocked(
  job: JobFolder,
  io: EvalIo,
  work: () => Promise<number>,
): Promise<number> {
  const lock = await lockJob(job.dir);
  if (!lock.ok) {
    io.stderr(`作业 ${job.spec.jobId} 正由进程 ${lock.pid} 运行；等它结束，或先停掉它\n`);
    return EVAL_EXIT_CODES.usage;
  }
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
