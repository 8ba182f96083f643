import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The development bin: runs the CLI from its TypeScript sources. */
export const BIN = fileURLToPath(new URL("../../bin/coding-agent-dev.js", import.meta.url));

/**
 * Spawns the real bin; resolves with its exit code and output. `env` replaces the
 * child's environment; `interruptWhenStarted` sends SIGINT once the run has started.
 */
export function spawnBin(
  args: readonly string[],
  options: { readonly interruptWhenStarted?: boolean; readonly env?: NodeJS.ProcessEnv } = {},
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      ...(options.env === undefined ? {} : { env: options.env }),
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
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
