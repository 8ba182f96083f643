import { spawn } from "node:child_process";
import { createOutputCap } from "./output-cap.ts";
import {
  type KillReason,
  OWN_PROCESS_GROUP,
  type ProcessGroup,
  type StartedChild,
} from "./process-group.ts";

/** How to run one process. `argv[0]` is the program's absolute path; no shell is involved. */
export interface ProcessOptions {
  readonly argv: readonly [string, ...string[]];
  readonly cwd: string;
  /** The child's whole environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Bytes kept of each of stdout and stderr (head and tail). */
  readonly maxOutputBytes: number;
  /** The run's signal: when it fires the child and everything it started are killed. */
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
 * Runs a process with stdin closed and no shell, and always ends it: `group` decides
 * whether the child leads its own process group and kills the child and everything it
 * started on timeout, on the run's abort, on an error, and when the child exits while
 * children it started in the background still run. By default (`OWN_PROCESS_GROUP`) the
 * whole group gets SIGKILL. Resolves after the output pipes have closed; rejects with the
 * signal's reason on abort (after the kill), with the spawn error, or with what `group`
 * threw.
 */
export function runProcess(
  options: ProcessOptions,
  group: ProcessGroup = OWN_PROCESS_GROUP,
): Promise<ProcessResult> {
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
      // With a new session and process group (setsid) the group id is the child's pid.
      detached: group.newGroup,
      shell: false,
    });
    const stdout = createOutputCap(options.maxOutputBytes);
    const stderr = createOutputCap(options.maxOutputBytes);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    // Undefined when the spawn failed: there is nothing to kill.
    const started: StartedChild | undefined =
      child.pid === undefined
        ? undefined
        : { pid: child.pid, kill: (signal) => child.kill(signal) };
    const killAll = (reason: KillReason) => {
      if (started === undefined) return;
      try {
        group.killAll(started, reason);
      } catch (error) {
        // Inside a timer or an event handler a throw would crash the whole process.
        cleanUp();
        reject(error);
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killAll("timeout");
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killAll("abort");
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // The main process ended: what it left running in the background goes too, or it
    // would outlive the call (and hold the output pipes open).
    child.on("exit", () => killAll("exit"));

    const cleanUp = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      cleanUp();
      killAll("error");
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
