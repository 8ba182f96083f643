import { spawn } from "node:child_process";

/** How a child process ended: on its own, killed at its deadline, killed by a cancel, or never started. */
export type ProcessOutcome =
  | {
      readonly kind: "exited";
      readonly code: number | null;
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly kind: "timeout"; readonly stdout: string; readonly stderr: string }
  | { readonly kind: "cancelled" }
  | { readonly kind: "spawn_error"; readonly message: string };

/**
 * How long a stopped child may take to cancel itself (SIGINT) before its group is killed.
 * `coding-agent` cancels its run on SIGINT, and its tools kill the commands they started in
 * their own sessions, which a signal to this group would not reach.
 */
export const STOP_GRACE_MS = 3000;

/**
 * Runs `command` in its own process group and never rejects. At `timeoutMs` or on `signal`
 * the group gets SIGINT (the CLI cancels its run and its tools stop what they started),
 * then SIGKILL after `STOP_GRACE_MS`: a timeout or a Ctrl-C stops real work instead of
 * abandoning it, and the promise settles only once the child is gone.
 */
export function runProcessGroup(options: {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
}): Promise<ProcessOutcome> {
  return new Promise((resolve) => {
    if (options.signal.aborted) {
      resolve({ kind: "cancelled" });
      return;
    }
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    let stdout = "";
    let stderr = "";
    let ended: "timeout" | "cancelled" | undefined;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const signalGroup = (name: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, name);
      } catch {
        // The group is already gone.
      }
    };
    let grace: NodeJS.Timeout | undefined;
    const killGroup = (why: "timeout" | "cancelled") => {
      if (ended !== undefined) return;
      ended = why;
      signalGroup("SIGINT");
      grace = setTimeout(() => signalGroup("SIGKILL"), STOP_GRACE_MS);
    };
    const timer = setTimeout(() => killGroup("timeout"), options.timeoutMs);
    const onAbort = () => killGroup("cancelled");
    options.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (outcome: ProcessOutcome) => {
      clearTimeout(timer);
      clearTimeout(grace);
      // Whatever the child left in its group (a grandchild that ignored SIGINT) goes too.
      signalGroup("SIGKILL");
      options.signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    child.on("error", (error) => finish({ kind: "spawn_error", message: error.message }));
    child.on("close", (code) => {
      if (ended === "timeout") finish({ kind: "timeout", stdout, stderr });
      else if (ended === "cancelled") finish({ kind: "cancelled" });
      else finish({ kind: "exited", code, stdout, stderr });
    });
  });
}

/** The last `lines` lines of a text, for a detail that must stay short. */
export function tail(text: string, lines = 8): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
