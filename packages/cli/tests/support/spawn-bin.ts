import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
    /** Sends SIGINT once a state log under this `$CODING_AGENT_HOME` holds this text. */
    readonly interruptWhenLogged?: { readonly home: string; readonly text: string };
    readonly env?: NodeJS.ProcessEnv;
  } = {},
) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      cwd: EMPTY_WORKSPACE,
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
    const logged = options.interruptWhenLogged;
    const poll =
      logged === undefined
        ? undefined
        : setInterval(() => {
            if (!interrupted && stateLogsOf(logged.home).includes(logged.text)) {
              interrupted = true;
              child.kill("SIGINT");
            }
          }, 20);
    child.on("close", () => clearInterval(poll));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every state log under `home`, joined (empty while there is none). */
function stateLogsOf(home: string): string {
  try {
    const runs = join(home, "runs");
    return readdirSync(runs)
      .map((run) => readFileSync(join(runs, run, "state.jsonl"), "utf8"))
      .join("");
  } catch {
    return "";
  }
}
