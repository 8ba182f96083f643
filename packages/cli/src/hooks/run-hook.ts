import { spawn } from "node:child_process";

/** Bytes of a hook's stdout and of its stderr that are kept (the rest is dropped, counted). */
export const MAX_HOOK_OUTPUT_BYTES = 64 * 1024;

/** How a hook command ended. */
export type HookRun =
  | {
      readonly kind: "exited";
      readonly exitCode: number;
      readonly stdout: string;
      readonly stderr: string;
      /** stdout went past `MAX_HOOK_OUTPUT_BYTES` (what is kept cannot be parsed). */
      readonly stdoutTruncated: boolean;
    }
  | { readonly kind: "signaled"; readonly signal: string; readonly stderr: string }
  | { readonly kind: "timeout"; readonly stderr: string }
  | { readonly kind: "cancelled"; readonly stderr: string }
  | { readonly kind: "spawn_failed"; readonly message: string };

/**
 * Runs `command` through `sh -c` in `cwd`, the event JSON on its stdin, in its own process
 * group. When the shell ends, or at `timeoutMs`, or when `signal` fires, the whole group is
 * killed (SIGKILL): a hook cannot leave a background child running after it, nor hang the
 * run. (A child that leaves the group on purpose, `setsid`, is out of reach of this rule;
 * a run that must contain that needs a sandbox around its hooks.)
 */
export function runHookCommand(options: {
  readonly command: string;
  readonly cwd: string;
  readonly stdin: string;
  readonly timeoutMs: number;
  readonly env: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
}): Promise<HookRun> {
  const { command, cwd, stdin, timeoutMs, env, signal } = options;
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve({ kind: "cancelled", stderr: "" });
      return;
    }
    const child = spawn("sh", ["-c", command], {
      cwd,
      env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = collector();
    const stderr = collector();
    child.stdout.on("data", stdout.add);
    child.stderr.on("data", stderr.add);
    // A hook that does not read its stdin (or exits first) must not crash the run: EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);

    let ended: HookRun | undefined;
    let settled = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const finish = (run: HookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      signal?.removeEventListener("abort", onAbort);
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(run);
    };
    const onAbort = () => {
      ended ??= { kind: "cancelled", stderr: stderr.text() };
      finish(ended);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => {
      ended ??= { kind: "timeout", stderr: stderr.text() };
      finish(ended);
    }, timeoutMs);
    let drain: NodeJS.Timeout | undefined;
    child.on("error", (error) => finish({ kind: "spawn_failed", message: error.message }));
    child.on("exit", (code, killedBy) => {
      ended ??=
        code === null
          ? { kind: "signaled", signal: killedBy ?? "unknown", stderr: "" }
          : {
              kind: "exited",
              exitCode: code,
              stdout: "",
              stderr: "",
              stdoutTruncated: false,
            };
      // The shell is gone: its leftovers (background children) go with its group, which
      // closes the pipes they held, so what the hook wrote is read to its end.
      killGroup();
      // A grandchild that left the group may still hold a pipe: do not wait for it past
      // the hook's own time limit.
      drain = setTimeout(() => finish(withOutput(ended as HookRun)), 1_000);
    });
    child.on("close", () => {
      if (ended !== undefined) finish(withOutput(ended));
    });

    function withOutput(run: HookRun): HookRun {
      if (run.kind === "exited") {
        return {
          ...run,
          stdout: stdout.text(),
          stderr: stderr.text(),
          stdoutTruncated: stdout.truncated(),
        };
      }
      if (run.kind === "signaled") return { ...run, stderr: stderr.text() };
      return run;
    }
  });
}

function collector() {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    add(chunk: Buffer) {
      const room = MAX_HOOK_OUTPUT_BYTES - kept;
      if (room > 0) {
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(part);
        kept += part.length;
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    truncated: () => dropped > 0,
  };
}
