import { randomUUID } from "node:crypto";
import net from "node:net";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import {
  type HarnessOutcome,
  type OnTaskFinished,
  type RecordTrial,
  withTrial,
} from "./harness.ts";
import { type AgentRunner, crashedTask, runTask, type TaskResult } from "./run-task.ts";
import type { EvalTask } from "./task-file.ts";
import {
  readTrajectory,
  runCutOf,
  type TrajectoryOf,
  type TrajectoryRead,
} from "./trajectory-read.ts";
import { type EvalTrial, trialLabel, trialsOf } from "./trial.ts";

/** The BullMQ queue every producer and worker of `coding-agent eval` shares. */
export const QUEUE_NAME = "coding-agent-eval";

/**
 * How long a worker's lock on a task lasts without renewal (BullMQ renews it every half of
 * this). A worker's event loop only waits on child processes, so renewals are never late;
 * a killed worker's task is free again after this plus up to two stalled checks.
 */
export const DEFAULT_LOCK_DURATION_MS = 15_000;
/** How often every worker looks for stalled tasks (BullMQ moves them back to waiting). */
export const DEFAULT_STALLED_INTERVAL_MS = 10_000;
/**
 * A task may be recovered from a dead worker this many times before BullMQ fails it
 * ("job stalled more than allowable limit"), which the report shows as a crash.
 */
export const MAX_STALLED_COUNT = 2;

/** Where Redis is. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/** What a job carries: the task with its fixture's files, which trial, and the run's default timeout. */
interface EvalJobData {
  readonly task: EvalTask;
  readonly defaultTimeoutMs?: number;
  /** The trial's number and the trials per task (absent: one trial). */
  readonly trial?: number;
  readonly trials?: number;
}

/**
 * What a worker hands back for a trial: its result, and its run read as a trajectory on the
 * worker's machine (where the run's files are), when the worker was told how.
 */
interface EvalJobReturn {
  readonly result: TaskResult;
  readonly trajectory?: TrajectoryRead;
}

/** `redis://host:port` as an address, or a Chinese message (exit 2). */
export function parseQueueUrl(
  url: string,
):
  | { readonly ok: true; readonly address: RedisAddress }
  | { readonly ok: false; readonly message: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: `--queue 需要 redis://主机:端口，收到 ${url}` };
  }
  if (parsed.protocol !== "redis:" || parsed.hostname === "")
    return { ok: false, message: `--queue 需要 redis://主机:端口，收到 ${url}` };
  if (
    (parsed.pathname !== "" && parsed.pathname !== "/") ||
    parsed.search !== "" ||
    parsed.username !== ""
  )
    return {
      ok: false,
      message: `--queue 只接受 redis://主机:端口（没有路径、参数或用户名），收到 ${url}`,
    };
  const port = parsed.port === "" ? 6379 : Number(parsed.port);
  return { ok: true, address: { host: parsed.hostname.replace(/^\[|\]$/g, ""), port } };
}

/**
 * A Redis client for BullMQ. BullMQ loads ioredis itself only from CommonJS; as an ES module
 * it needs a client built here. `maxRetriesPerRequest: null` is what BullMQ asks of the
 * connections it blocks on; errors are left to the commands that meet them.
 */
function connect(address: RedisAddress): Redis {
  const client = new Redis({ host: address.host, port: address.port, maxRetriesPerRequest: null });
  client.on("error", () => {});
  return client;
}

/** Whether Redis answers a TCP connection within `timeoutMs`: a dead port is one message, not a hang. */
export function canReach(address: RedisAddress, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address.host, port: address.port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Puts every task on the queue once and waits for each result: {@link runTrialsOnQueue} with
 * one trial per task under a key of its own.
 */
export function runTasksOnQueue(
  tasks: readonly EvalTask[],
  options: {
    readonly address: RedisAddress;
    readonly signal: AbortSignal;
    readonly defaultTimeoutMs?: number;
    readonly onTaskFinished?: OnTaskFinished;
  },
): Promise<HarnessOutcome> {
  return runTrialsOnQueue(trialsOf(tasks, 1), {
    ...options,
    jobKey: randomUUID(),
    trialsPerTask: 1,
  });
}

/**
 * Puts every trial on the queue (BullMQ job id: the eval job's key, the trial number and the
 * task id, so a trial is on the queue at most once) and waits for each job's end. A job
 * ends once: BullMQ completes it only under the lock its worker holds, and a worker that lost
 * the lock (it was presumed dead and the trial went to another) cannot complete it any more.
 * A failed job (stalled too often) is a crash.
 *
 * The ids are the eval job's, so a resume after a killed producer finds what the queue did
 * meanwhile: adding an id that is still there adds nothing, and waiting on a job a worker
 * already completed gives back its result at once, so no trial runs twice.
 */
export async function runTrialsOnQueue(
  trials: readonly EvalTrial[],
  options: {
    readonly address: RedisAddress;
    readonly signal: AbortSignal;
    /** Names this eval job's trials on the queue (the job id; a fresh key for a one-off run). */
    readonly jobKey: string;
    readonly trialsPerTask: number;
    readonly defaultTimeoutMs?: number;
    /** Called with each result before it counts as finished (the job folder's trial file). */
    readonly record?: RecordTrial;
    readonly onTaskFinished?: OnTaskFinished;
  },
): Promise<HarnessOutcome> {
  const clients = [connect(options.address), connect(options.address)] as const;
  const queue = new Queue<EvalJobData, EvalJobReturn>(QUEUE_NAME, { connection: clients[0] });
  const events = new QueueEvents(QUEUE_NAME, { connection: clients[1] });
  queue.on("error", () => {});
  events.on("error", () => {});
  const results = new Map<number, TaskResult>();
  let finished = 0;
  try {
    await events.waitUntilReady();
    const jobs = await queue.addBulk(
      trials.map(({ task, trial }) => ({
        name: task.id,
        data: {
          task,
          ...(options.trialsPerTask === 1 ? {} : { trial, trials: options.trialsPerTask }),
          ...(options.defaultTimeoutMs === undefined
            ? {}
            : { defaultTimeoutMs: options.defaultTimeoutMs }),
        },
        opts: { jobId: `${options.jobKey}.${trial}.${task.id}`, attempts: 1 },
      })),
    );
    const cancelled = new Promise<"cancelled">((resolve) => {
      if (options.signal.aborted) resolve("cancelled");
      options.signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
    });
    const all = Promise.all(
      jobs.map(async (job, index) => {
        const item = trials[index] as EvalTrial;
        const ended = await job.waitUntilFinished(events).then(
          (value: EvalJobReturn) => value,
          (error: unknown): EvalJobReturn => ({
            result: crashedTask(
              item.task.id,
              error instanceof Error ? error.message : String(error),
              0,
            ),
          }),
        );
        const result = withTrial(ended.result, item.trial, options.trialsPerTask);
        // One result per trial, whatever the events say.
        if (results.has(index) || options.signal.aborted) return;
        results.set(index, result);
        await options.record?.(item, result, ended.trajectory);
        finished += 1;
        options.onTaskFinished?.(result, finished, trials.length);
      }),
    );
    if ((await Promise.race([all, cancelled])) === "cancelled") {
      // Trials not yet taken are removed; a trial a worker holds ends there unreported.
      await Promise.all(jobs.map((job) => job.remove().catch(() => undefined)));
      return { kind: "cancelled" };
    }
    await Promise.all(jobs.map((job) => job.remove().catch(() => undefined)));
    return { kind: "done", results: trials.map((_, index) => results.get(index) as TaskResult) };
  } finally {
    await Promise.allSettled([events.close(), queue.close()]);
    for (const client of clients) client.disconnect();
  }
}

/**
 * `coding-agent eval worker`: takes tasks from the queue, `concurrency` at a time, runs
 * each like a local run and hands back its result. On `signal` (Ctrl-C) running tasks are
 * killed and the worker leaves without completing them: their locks lapse and another
 * worker gets them, as if this one had died. Resolves once the worker is closed.
 */
export async function runQueueWorker(options: {
  readonly address: RedisAddress;
  readonly runner: AgentRunner;
  readonly concurrency: number;
  readonly signal: AbortSignal;
  readonly lockDurationMs?: number;
  readonly stalledIntervalMs?: number;
  /** How a finished trial's run is read as ATIF here, to travel back with its result. */
  readonly trajectoryOf?: TrajectoryOf;
  /** A trial started: its task id, or `id #n` for a trial of `--trials k` (k > 1). */
  readonly onTaskStarted?: (label: string) => void;
  readonly onTaskFinished?: (result: TaskResult, label: string) => void;
  readonly onReady?: () => void;
  /** A BullMQ error (Redis gone, a completion refused because the lock was lost). */
  readonly onError?: (message: string) => void;
}): Promise<void> {
  const client = connect(options.address);
  const processor = async (job: Job<EvalJobData, EvalJobReturn>): Promise<EvalJobReturn> => {
    const label = trialLabel(job.data.task.id, job.data.trial ?? 1, job.data.trials ?? 1);
    options.onTaskStarted?.(label);
    const result = await runTask(job.data.task, {
      runner: options.runner,
      signal: options.signal,
      ...(job.data.defaultTimeoutMs === undefined
        ? {}
        : { defaultTimeoutMs: job.data.defaultTimeoutMs }),
    });
    // Cancelled here means this worker is going away: never report it, let the lock lapse.
    if (options.signal.aborted) return new Promise<never>(() => {});
    options.onTaskFinished?.(result, label);
    const trajectory =
      result.runId === undefined || options.trajectoryOf === undefined
        ? undefined
        : await readTrajectory(options.trajectoryOf, result.runId, runCutOf(result));
    return trajectory === undefined ? { result } : { result, trajectory };
  };
  const worker = new Worker<EvalJobData, EvalJobReturn>(QUEUE_NAME, processor, {
    connection: client,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
    stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: MAX_STALLED_COUNT,
    autorun: false,
  });
  worker.on("error", (error) => options.onError?.(error.message));
  await worker.waitUntilReady();
  const running = worker.run();
  options.onReady?.();
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    options.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await worker.close(true);
  await running.catch(() => undefined);
  client.disconnect();
}
