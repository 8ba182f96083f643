import { spawn } from "node:child_process";
import { agentConfigMounts } from "../edits/agent-config.ts";
import type { ProcessGroup } from "./process-group.ts";
import { newSandboxMarker, SANDBOX_MARKER_ENV, sandboxGroup } from "./sandbox-group.ts";

/**
 * The bubblewrap command line that runs `argv` with `workspace` as the only
 * writable place, except `readOnly` inside it. Pure: the same inputs give the same
 * argv. Order matters: later mounts cover earlier ones, so `/tmp` is made private
 * before the workspace is bound (a workspace under `/tmp` stays visible), and the
 * read-only paths are bound over the workspace after it.
 */
export function buildBwrapArgv(options: {
  /** Absolute path of `bwrap`. */
  readonly bwrap: string;
  /** Real absolute path of the workspace. */
  readonly workspace: string;
  /** The command, `argv[0]` an absolute path. */
  readonly argv: readonly string[];
  /**
   * Absolute paths inside the workspace bound read-only (those that exist): the agent's
   * own configuration, so a command cannot plant a hook. Default: the workspace's
   * `.coding-agent/` and `.mcp.json`.
   */
  readonly readOnly?: readonly string[];
  /**
   * Set inside the sandbox as `CODING_AGENT_SANDBOX`, so it stands in bwrap's command line:
   * how a killed sandbox's leftover is found (`sandboxGroup`). Left out: not set.
   */
  readonly marker?: string;
}): string[] {
  const { bwrap, workspace, argv, marker } = options;
  const readOnly = options.readOnly ?? agentConfigMounts(workspace);
  return [
    bwrap,
    // The whole machine, read-only: programs and libraries work, nothing can be changed.
    "--ro-bind",
    "/",
    "/",
    // Fresh /dev (null, zero, urandom, tty…) and a /proc of the new PID namespace.
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    // A private, empty /tmp: nothing left there by others is seen, nothing written survives.
    "--tmpfs",
    "/tmp",
    // The one writable place.
    "--bind",
    workspace,
    workspace,
    // The agent's own configuration, read-only inside the writable workspace (`-try`: a
    // missing one is skipped, as a mount point would create it in the real workspace).
    ...readOnly.flatMap((file) => ["--ro-bind-try", file, file]),
    // No network namespace shared: no socket reaches anything, loopback included.
    "--unshare-net",
    // Its own PID namespace: it sees and signals only its own processes, and they all
    // die with it.
    "--unshare-pid",
    // Killed when the parent (this runtime) dies, so a crash leaves nothing behind.
    "--die-with-parent",
    // A new session: no TIOCSTI keystroke injection into the caller's terminal.
    "--new-session",
    ...(marker === undefined ? [] : ["--setenv", SANDBOX_MARKER_ENV, marker]),
    "--chdir",
    workspace,
    "--",
    ...argv,
  ];
}

/**
 * A command to run in bwrap (`buildBwrapArgv` with a fresh marker) and the process group
 * `runProcess` ends it with: bwrap's group, and what a kill during bwrap's start-up left
 * outside it (`sandboxGroup`).
 */
export function bwrapCommand(options: Omit<Parameters<typeof buildBwrapArgv>[0], "marker">): {
  readonly argv: string[];
  readonly group: ProcessGroup;
} {
  const marker = newSandboxMarker();
  return { argv: buildBwrapArgv({ ...options, marker }), group: sandboxGroup(marker) };
}

/** Whether bubblewrap can run here, and why not when it cannot. */
export type BwrapProbe =
  | { readonly usable: true; readonly path: string }
  | { readonly usable: false; readonly reason: string };

/**
 * Checks that `bwrap` really starts a sandbox around `workspace`: installed is
 * not enough (a container without user namespaces refuses to create one).
 */
export async function probeBwrap(
  bwrap: string | undefined,
  workspace: string,
): Promise<BwrapProbe> {
  if (bwrap === undefined)
    return { usable: false, reason: "PATH 上没有 bwrap（未安装 bubblewrap）" };
  const argv = buildBwrapArgv({ bwrap, workspace, argv: ["/bin/sh", "-c", "exit 0"] });
  const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(argv[0] ?? bwrap, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => resolve({ code: null, stderr: error.message }));
    child.on("close", (code) => resolve({ code, stderr }));
  });
  if (outcome.code === 0) return { usable: true, path: bwrap };
  return {
    usable: false,
    reason: `bwrap 无法创建沙箱：${outcome.stderr.trim() || `退出码 ${outcome.code}`}`,
  };
}
