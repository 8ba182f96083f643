import { spawn } from "node:child_process";
import { createOutputCap } from "./output-cap.ts";

/** How to run one process. `argv[0]` is the program's absolute path; no shell is involved. */
export interface ProcessOptions {
  readonly argv: readonly [string, ...string[]];
  readonly cwd: string;
  /** The child's whole environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Bytes kept of each of stdout and stderr (head and tail). */
  readonly maxOutputBytes: number;
  /** The run's signal: when it fires the whole process group is killed. */
  readonly signal?: AbortSignal;
}

/** How a process ended. `signal` is the signal that killed it, if any. */
export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when some output was dropped from the middle of stdout or stderr. */
  readonly truncated: boolean;
  readonly timedOut: boolean;
}

/**
 * Runs a process in its own process group with stdin closed, and always ends it:
 * on timeout, on the run's abort, and when the main process exits while children
 * it started in the background still run, the whole group gets SIGKILL. Resolves
 * after the group's output pipes have closed; rejects with the signal's reason on
 * abort (after the kill), or with the spawn error.
 */
export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const [program, ...args] = options.argv;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...options.env },
      // stdin closed: a command waiting for input sees end-of-file, never hangs on it.
      stdio: ["ignore", "pipe", "pipe"],
      // A new session and process group (setsid): the group id is the child's pid.
      detached: true,
      shell: false,
    });
    const stdout = createOutputCap(options.maxOutputBytes);
    const stderr = createOutputCap(options.maxOutputBytes);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // The main process ended: what it left running in the background goes too, or it
    // would outlive the call (and hold the output pipes open).
    child.on("exit", killGroup);

    const cleanUp = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      cleanUp();
      killGroup();
      reject(error);
    });
    child.on("close", (exitCode, signal) => {
      cleanUp();
      if (aborted) {
        reject(options.signal?.reason);
        return;
      }
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.droppedBytes > 0 || stderr.droppedBytes > 0,
        timedOut,
      });
    });
  });
}
