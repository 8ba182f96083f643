import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { EMPTY_WORKSPACE } from "./isolate.ts";

/** The development bin: runs the CLI from its TypeScript sources. */
export const BIN = fileURLToPath(new URL("../../bin/coding-agent-dev.js", import.meta.url));

/**
 * Spawns the real bin; resolves with its exit code and output. `env` replaces the
 * child's environment; `interruptWhenStarted` sends SIGINT once the run has started.
 */
export function spawnBin(
  args: readonly string[],
  options: {
    readonly interruptWhenStarted?: boolean;
    /** Sends SIGINT once this file exists (a command of the run writes it when it starts). */
    readonly interruptWhenExists?: string;
    readonly env?: NodeJS.ProcessEnv;
    /** The working folder (the run's default workspace); an empty folder when left out. */
    readonly cwd?: string;
  } = {},
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      cwd: options.cwd ?? EMPTY_WORKSPACE,
      // A replaced environment keeps the test's run folder.
      ...(options.env === undefined
        ? {}
        : { env: { CODING_AGENT_HOME: process.env.CODING_AGENT_HOME, ...options.env } }),
    });
    let stdout = "";
    let stderr = "";
    let interrupted = false;
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      if (options.interruptWhenStarted && !interrupted && stderr.includes("开始运行")) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const marker = options.interruptWhenExists;
    const poll =
      marker === undefined
        ? undefined
        : setInterval(() => {
            if (!interrupted && existsSync(marker)) {
              interrupted = true;
              child.kill("SIGINT");
            }
          }, 20);
    child.on("close", () => clearInterval(poll));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
