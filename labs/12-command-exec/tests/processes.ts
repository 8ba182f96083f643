import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * 测试里每个脚本都把自己派生的进程号写进一个文件（`echo $! >> "$1"`），测试据此
 * 判断还有没有进程活着。只靠 pid 文件和 `kill(pid, 0)`，Linux 和 macOS 都能用。
 */
export interface ProcessLab {
  /** 本测试的临时目录：命令的 cwd。 */
  readonly dir: string;
  /** 脚本写入进程号的文件。 */
  readonly pidFile: string;
  /** `sh -c script sh <pidFile>`：脚本里 `"$1"` 就是 pid 文件。 */
  sh(script: string): [string, ...string[]];
  /** 脚本写下的进程号。 */
  recordedPids(): Promise<number[]>;
  /** 等脚本记下至少 `count` 个进程（最多 `withinMs`），返回已记下的。 */
  waitForPids(count: number, withinMs?: number): Promise<number[]>;
  /** 等最多 `withinMs`，返回仍在运行的已记录进程。 */
  survivors(withinMs?: number): Promise<number[]>;
  /** 杀掉仍在运行的已记录进程，删除临时目录：测试失败时也不留下任何进程。 */
  cleanUp(): Promise<void>;
}

export async function createProcessLab(): Promise<ProcessLab> {
  const dir = await mkdtemp(join(tmpdir(), "lab-12-"));
  const pidFile = join(dir, "pids");
  const recordedPids = async () => {
    const text = await readFile(pidFile, "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((line) => /^\d+$/.test(line))
      .map(Number);
  };
  return {
    dir,
    pidFile,
    sh: (script) => ["/bin/sh", "-c", script, "sh", pidFile],
    recordedPids,
    async waitForPids(count, withinMs = 1_000) {
      const deadline = Date.now() + withinMs;
      while (true) {
        const pids = await recordedPids();
        if (pids.length >= count || Date.now() >= deadline) return pids;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async survivors(withinMs = 400) {
      const deadline = Date.now() + withinMs;
      while (true) {
        const alive = (await recordedPids()).filter(isRunning);
        if (alive.length === 0 || Date.now() >= deadline) return alive;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async cleanUp() {
      for (const pid of await recordedPids()) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // 已经不在了。
        }
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** 进程还在运行（已退出、只剩僵尸的不算）。 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM：进程在，只是不属于我们。
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // Linux：第三个字段是状态，Z 是等待回收的僵尸。
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    // 没有 /proc（macOS）：kill(pid, 0) 成功就算在运行。
    return true;
  }
}

/** 等 `promise` 最多 `ms` 毫秒：结束了给出结果或错误，没结束就说没结束。 */
export async function settleWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<
  | { readonly settled: true; readonly value: T }
  | { readonly settled: true; readonly error: unknown }
  | { readonly settled: false }
> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ settled: false }>((resolve) => {
    timer = setTimeout(() => resolve({ settled: false }), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ settled: true as const, value }),
        (error: unknown) => ({ settled: true as const, error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
