import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SerializedTestError } from "./runner-classify.ts";

/** One target as the child process receives it: every path absolute, every default filled. */
export interface ChildTarget {
  readonly label: string;
  readonly labDir: string;
  readonly packageDir: string;
  readonly srcDir: string;
  readonly shuffle: boolean;
  readonly testTimeoutMs: number;
  /** Tests (full names) an earlier round found blocking their worker; skipped this time. */
  readonly skip: readonly string[];
}

/** One finished test file of one target, as the child reports it. */
export interface ModuleReport {
  readonly project: string;
  readonly file: string;
  readonly errors: readonly SerializedTestError[];
  readonly tests: readonly {
    readonly name: string;
    readonly state: "passed" | "failed" | "skipped";
    readonly errors: readonly SerializedTestError[];
  }[];
}

/** How one child process ended. */
export type RoundEnd =
  /** vitest finished every planned file. */
  | { readonly kind: "done" }
  /** A test ran past its timeout without returning: its worker is blocked; child killed. */
  | { readonly kind: "hung"; readonly hung: ReadonlyMap<string, readonly string[]> }
  /** Nothing happened for `idleMs`, with no test running (e.g. an endless loop at import). */
  | { readonly kind: "idle" }
  /** The child failed before or outside the tests (vitest could not start). */
  | { readonly kind: "crashed"; readonly message: string };

export interface RoundResult {
  readonly end: RoundEnd;
  /** Files vitest planned to run, per target label. */
  readonly planned: ReadonlyMap<string, readonly string[]>;
  /** Files that finished, per target label. */
  readonly modules: ReadonlyMap<string, readonly ModuleReport[]>;
}

export interface RoundOptions {
  readonly root: string;
  readonly seed: number | undefined;
  readonly testTimeoutMs: number;
  readonly hangGraceMs: number;
  readonly idleMs: number;
  readonly maxWorkers: number | undefined;
}

const CHILD_SCRIPT = path.join(import.meta.dirname, "runner-child.js");
const POLL_MS = 150;

interface ProgressLine {
  readonly event: "start" | "end";
  readonly label: string;
  readonly name: string;
}

/**
 * Runs one vitest child process over `targets` and watches it. The child is the leader of
 * its own process group, so killing the group also ends vitest's forked workers, including
 * one spinning in a synchronous loop that no in-process timer can interrupt.
 */
export async function runRound(
  targets: readonly ChildTarget[],
  options: RoundOptions,
): Promise<RoundResult> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), "lab-kit-run-"));
  const progressFile = path.join(tempDir, "progress.ndjson");
  await writeFile(progressFile, "");
  const planned = new Map<string, string[]>();
  const modules = new Map<string, ModuleReport[]>();
  const running = new Map<string, number>();
  let lastActivity = Date.now();
  let progressLength = 0;

  const child = fork(CHILD_SCRIPT, [], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    execArgv: [],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const killGroup = (): void => killProcessGroup(child);
  process.once("exit", killGroup);

  const end = await new Promise<RoundEnd>((resolve) => {
    let settled = false;
    const finish = (value: RoundEnd): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      resolve(value);
    };
    child.on("message", (raw) => {
      lastActivity = Date.now();
      const message = raw as { type: string } & Record<string, unknown>;
      switch (message.type) {
        case "planned":
          for (const entry of message.modules as { project: string; file: string }[]) {
            const files = planned.get(entry.project) ?? [];
            files.push(entry.file);
            planned.set(entry.project, files);
          }
          break;
        case "module": {
          const report = message as unknown as ModuleReport;
          const list = modules.get(report.project) ?? [];
          list.push(report);
          modules.set(report.project, list);
          break;
        }
        case "done":
          finish({ kind: "done" });
          break;
        case "fatal":
          finish({ kind: "crashed", message: String(message.message) });
          break;
        default:
          break;
      }
    });
    child.on("exit", (code, signal) => {
      const detail = stderr.trim() === "" ? "" : `\n${stderr.trim()}`;
      finish({ kind: "crashed", message: `vitest 子进程意外退出（${code ?? signal}）${detail}` });
    });
    const timer = setInterval(() => {
      void readFile(progressFile, "utf8").then((text) => {
        if (settled || text.length === progressLength) return checkIdle();
        const fresh = text.slice(progressLength, text.lastIndexOf("\n") + 1);
        progressLength += fresh.length;
        lastActivity = Date.now();
        for (const line of fresh.split("\n")) {
          if (line === "") continue;
          const entry = JSON.parse(line) as ProgressLine;
          const key = JSON.stringify([entry.label, entry.name]);
          if (entry.event === "start") running.set(key, Date.now());
          else running.delete(key);
        }
        return checkIdle();
      });
    }, POLL_MS);
    const checkIdle = (): void => {
      const now = Date.now();
      const hung = new Map<string, string[]>();
      for (const [key, startedAt] of running) {
        if (now - startedAt < options.testTimeoutMs + options.hangGraceMs) continue;
        const [label, name] = JSON.parse(key) as [string, string];
        hung.set(label, [...(hung.get(label) ?? []), name]);
      }
      if (hung.size > 0) finish({ kind: "hung", hung });
      else if (running.size === 0 && now - lastActivity > options.idleMs) finish({ kind: "idle" });
    };
    child.send({
      type: "run",
      job: {
        root: options.root,
        cacheDir: path.join(targets[0]?.packageDir ?? options.root, "node_modules", ".vite"),
        progressFile,
        targets,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.maxWorkers === undefined ? {} : { maxWorkers: options.maxWorkers }),
      },
    });
  });

  killGroup();
  process.removeListener("exit", killGroup);
  await rm(tempDir, { recursive: true, force: true });
  return { end, planned, modules };
}

function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}
