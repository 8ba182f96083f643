import type { ChildBudget } from "./child-runner.ts";
import { type ChildTask, runAll as defaultRunAll } from "./scheduler.ts";
import type { SpawnResult } from "./spawn-tool.ts";

/** How a call that has started gets its child: run it (given a slot), or say why it did not. */
export interface Launch {
  /** Runs the child with the batch's share; `signal` is the one `runAll` passes. */
  run(share: ChildBudget, signal: AbortSignal): Promise<SpawnResult>;
  /** The call's result when its child threw, or never started (`runAll` was cancelled). */
  failed(error: unknown): SpawnResult;
}

/** A reply's `spawn_agent` calls, each waiting for its call to start. */
export interface ChildBatch {
  /** Whether `callId` is one of the batch's calls that has not started yet. */
  awaits(callId: string): boolean;
  /** The call has started: its child runs once `runAll` reaches it; resolves the call's result. */
  start(callId: string, launch: Launch): Promise<SpawnResult>;
  /** The calls before `order` that have not started never will (the loop goes in call order). */
  skipBefore(order: number): void;
  /** No call not started yet will start (the reply is over, or the run). */
  skipAll(): void;
  /** Settles once every call of the batch has its answer (or never started). */
  readonly done: Promise<void>;
}

export interface ChildBatchOptions {
  /** The batch's calls, in the reply's order. */
  readonly calls: readonly { readonly callId: string; readonly order: number }[];
  /** What each child gets (carved for the whole batch), or why none can start. */
  readonly share: ChildBudget | SpawnResult;
  /** `--subagents`: children running at once. */
  readonly limit: number;
  /** The parent's cancel. */
  readonly signal: AbortSignal;
  /** Lesson 39's scheduler; default `runAll`. */
  readonly runAll?: typeof defaultRunAll;
}

interface Entry {
  readonly callId: string;
  readonly order: number;
  /** Settles with the call's launch once it starts, or undefined once it never will. */
  readonly started: Deferred<Launch | undefined>;
  readonly result: Deferred<SpawnResult>;
  launch?: Launch;
  running: boolean;
}

/**
 * Hands a reply's `spawn_agent` calls to `runAll` as one batch (at most `limit` children at once,
 * started in call order, the parent's cancel reaching each). The loop starts the calls; a task
 * of `runAll` waits for its call to start, so a call a hook vetoed (or that never ran) starts
 * no child: its task ends as soon as a later call starts or the reply is over.
 */
export function startChildBatch(options: ChildBatchOptions): ChildBatch {
  const entries = options.calls.map(
    (call): Entry => ({ ...call, started: deferred(), result: deferred(), running: false }),
  );
  const { share } = options;
  let done = Promise.resolve();
  if ("limits" in share) {
    const runAll = options.runAll ?? defaultRunAll;
    const tasks = entries.map((entry) => childTask(entry, share));
    const answerUnstarted = (error: (at: number) => unknown) => {
      entries.forEach((entry, at) => {
        if (!entry.running && entry.launch) entry.result.resolve(entry.launch.failed(error(at)));
      });
    };
    done = runAll(tasks, { limit: options.limit, signal: options.signal }).then(
      (settled) =>
        answerUnstarted((at) => {
          const one = settled[at];
          return one === undefined || one.ok ? new Error("没有运行") : one.error;
        }),
      (error: unknown) => answerUnstarted(() => error),
    );
  } else {
    for (const entry of entries) entry.result.resolve(share);
  }
  const skip = (entry: Entry) => {
    if (entry.launch === undefined) entry.started.resolve(undefined);
  };
  return {
    awaits: (callId) => entries.some((entry) => entry.callId === callId && !entry.started.settled),
    start(callId, launch) {
      const entry = entries.find((one) => one.callId === callId) as Entry;
      entry.launch = launch;
      entry.started.resolve(launch);
      return entry.result.promise;
    },
    skipBefore(order) {
      for (const entry of entries) if (entry.order < order) skip(entry);
    },
    skipAll: () => entries.forEach(skip),
    done,
  };
}

/** One call's task of `runAll`: wait for the call to start, then run its child. */
function childTask(entry: Entry, share: ChildBudget): ChildTask<unknown> {
  return async (signal) => {
    const launch = await startOf(entry, signal);
    if (launch === undefined) return undefined;
    entry.running = true;
    try {
      const result = await launch.run(share, signal);
      entry.result.resolve(result);
      return result;
    } catch (error) {
      entry.result.resolve(launch.failed(error));
      throw error;
    }
  };
}

/** The entry's launch once its call starts; undefined if it never will; the cancel's reason. */
function startOf(entry: Entry, signal: AbortSignal): Promise<Launch | undefined> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void entry.started.promise.then((launch) => {
      signal.removeEventListener("abort", onAbort);
      resolve(launch);
    });
  });
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
  readonly settled: boolean;
}

/** A promise and the function that resolves it (the first call wins). */
function deferred<T>(): Deferred<T> {
  let settle: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  const state = {
    promise,
    settled: false,
    resolve(value: T) {
      state.settled = true;
      settle(value);
    },
  };
  return state;
}
