import path from "node:path";
import { LAB_TEST_TIMEOUT_MS } from "./lab-test-settings.js";
import { forkRunnerChild, killProcessGroup, takePrestartedRunner } from "./runner-prestart.ts";
import {
  type ChildPackageRun,
  type ChildTarget,
  type ModuleReport,
  type PackageModuleReport,
  parseChildMessage,
  type RunJob,
} from "./runner-protocol.ts";

/** How one child process ended. */
export type RoundEnd =
  /** vitest finished every planned file. */
  | { readonly kind: "done" }
  /**
   * A test ran past its timeout without returning, or a file did not finish importing in
   * time: its worker is blocked (a synchronous endless loop); the child was killed.
   */
  | {
      readonly kind: "hung";
      readonly tests: ReadonlyMap<string, readonly string[]>;
      readonly imports: ReadonlyMap<string, readonly string[]>;
    }
  /** Nothing happened for `idleMs`, with no test running. */
  | { readonly kind: "idle" }
  /** The child failed before or outside the tests (vitest could not start). */
  | { readonly kind: "crashed"; readonly message: string };

export interface RoundResult {
  readonly end: RoundEnd;
  /** Files vitest planned to run, per target label. */
  readonly planned: ReadonlyMap<string, readonly string[]>;
  /** Files that finished, per target label. */
  readonly modules: ReadonlyMap<string, readonly ModuleReport[]>;
  /** Imports a test file made that lab tests may not make, per target label. */
  readonly forbiddenImports: ReadonlyMap<
    string,
    readonly { importer: string; specifier: string }[]
  >;
  /** Files of the package runs that finished. */
  readonly packageModules: readonly PackageModuleReport[];
}

export interface RoundOptions {
  readonly root: string;
  /** Time a running test may take, beyond its target's own timeout, before it counts as hung. */
  readonly hangGraceMs: number;
  readonly importTimeoutMs: number;
  readonly idleMs: number;
  readonly maxWorkers: number | undefined;
}

/** How often the watchdog compares running tests and imports with their deadlines. */
const WATCHDOG_MS = 100;

/** Adds `value` to the list under `key`. */
function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/**
 * Runs one vitest child process over `targets` and watches it. The child is the leader of
 * its own process group, so killing the group also ends vitest's workers, including one
 * spinning in a synchronous loop that no in-process timer can interrupt.
 */
export async function runRound(
  targets: readonly ChildTarget[],
  packages: readonly ChildPackageRun[],
  options: RoundOptions,
): Promise<RoundResult> {
  const planned = new Map<string, string[]>();
  const modules = new Map<string, ModuleReport[]>();
  const forbiddenImports = new Map<string, { importer: string; specifier: string }[]>();
  const packageModules: PackageModuleReport[] = [];
  /** Running tests and importing files, keyed `[label, name-or-file]`, with start time. */
  const runningTests = new Map<string, number>();
  const importing = new Map<string, number>();
  let lastActivity = Date.now();
  const timeouts = new Map(targets.map((target) => [target.label, target.testTimeoutMs]));

  const child = takePrestartedRunner() ?? forkRunnerChild();
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const killGroup = (): void => killProcessGroup(child);
  process.once("exit", killGroup);

  try {
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
        const parsed = parseChildMessage(raw);
        if (!parsed.ok) {
          finish({
            kind: "crashed",
            message: `vitest 子进程发来无法识别的消息：${parsed.problem}`,
          });
          return;
        }
        const message = parsed.message;
        switch (message.type) {
          case "planned":
            for (const entry of message.modules) push(planned, entry.project, entry.file);
            break;
          case "module-queued":
            importing.set(JSON.stringify([message.project, message.file]), Date.now());
            break;
          case "module-collected":
            importing.delete(JSON.stringify([message.project, message.file]));
            break;
          case "test-start": {
            // A test given a longer timeout than its target's may run that long unblocked.
            const own = Math.max(0, (message.timeout ?? 0) - (timeouts.get(message.project) ?? 0));
            runningTests.set(JSON.stringify([message.project, message.name]), Date.now() + own);
            break;
          }
          case "test-end":
            runningTests.delete(JSON.stringify([message.project, message.name]));
            break;
          case "module": {
            const { type: _type, ...report } = message;
            importing.delete(JSON.stringify([report.project, report.file]));
            push(modules, report.project, report);
            break;
          }
          case "forbidden-import":
            push(forbiddenImports, message.project, {
              importer: message.importer,
              specifier: message.specifier,
            });
            break;
          case "package-module": {
            const { type: _type, ...report } = message;
            packageModules.push(report);
            break;
          }
          case "done":
            finish({ kind: "done" });
            break;
          case "fatal":
            finish({ kind: "crashed", message: message.message });
            break;
          default: {
            const unreachable: never = message;
            return unreachable;
          }
        }
      });
      child.on("exit", (code, signal) => {
        const detail = stderr.trim() === "" ? "" : `\n${stderr.trim()}`;
        finish({ kind: "crashed", message: `vitest 子进程意外退出（${code ?? signal}）${detail}` });
      });
      const timer = setInterval(() => {
        const now = Date.now();
        const overdue = (started: Map<string, number>, limit: (label: string) => number) => {
          const found = new Map<string, string[]>();
          for (const [key, startedAt] of started) {
            const [label = "", item = ""] = JSON.parse(key) as [string, string];
            if (now - startedAt >= limit(label)) push(found, label, item);
          }
          return found;
        };
        const tests = overdue(
          runningTests,
          (label) => (timeouts.get(label) ?? LAB_TEST_TIMEOUT_MS) + options.hangGraceMs,
        );
        const imports = overdue(importing, () => options.importTimeoutMs);
        if (tests.size > 0 || imports.size > 0) finish({ kind: "hung", tests, imports });
        else if (runningTests.size === 0 && now - lastActivity > options.idleMs) {
          finish({ kind: "idle" });
        }
      }, WATCHDOG_MS);
      const job: RunJob = {
        type: "run",
        root: options.root,
        cacheDir: path.join(
          targets[0]?.packageDir ?? packages[0]?.packageDir ?? options.root,
          "node_modules",
          ".vite",
        ),
        targets,
        packages,
        ...(options.maxWorkers === undefined ? {} : { maxWorkers: options.maxWorkers }),
      };
      child.send(job);
    });
    return { end, planned, modules, forbiddenImports, packageModules };
  } finally {
    killGroup();
    process.removeListener("exit", killGroup);
  }
}
