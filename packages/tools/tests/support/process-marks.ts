import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";

/**
 * Every process a test starts carries this variable in its environment (children and
 * grandchildren inherit it), so the suite can find any that outlive their test.
 */
export const MARK_NAME = "CODING_AGENT_TOOLS_TEST_MARK";

/** This test file's mark, set once per file by the setup module. */
export function currentMark(): string {
  process.env[MARK_NAME] ??= `mark-${randomUUID()}`;
  return process.env[MARK_NAME];
}

/** The minimal environment tests give a child: PATH and the mark. */
export function markedEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", [MARK_NAME]: currentMark() };
}

/** Pids of live (not zombie) processes whose environment carries `mark`. */
export async function findMarkedProcesses(mark: string): Promise<number[]> {
  const needle = Buffer.from(`${MARK_NAME}=${mark}\0`);
  const pids = (await readdir("/proc"))
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid);
  const marked = await Promise.all(
    pids.map(async (pid) => {
      // A zombie or a process that exited meanwhile has no readable environment.
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
      return environ?.includes(needle) === true;
    }),
  );
  return pids.filter((_, index) => marked[index]);
}

/** Waits up to `withinMs` for marked processes to go; returns those still running. */
export async function leftoverProcesses(mark: string, withinMs = 3_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  while (true) {
    const pids = await findMarkedProcesses(mark);
    if (pids.length === 0 || Date.now() > deadline) return pids;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The command lines of `pids`, for a failure message. */
export async function describeProcesses(pids: readonly number[]): Promise<string> {
  const lines = await Promise.all(
    pids.map(async (pid) => {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
      return `${pid}: ${cmdline.replaceAll("\0", " ").trim()}`;
    }),
  );
  return lines.join("\n");
}
