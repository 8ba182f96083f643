// The body of the `lab-test` bin (every lab's `test` script) and of `pnpm lesson watch`:
// vitest with the one lab config, its own output, under a watchdog. Plain JavaScript on
// purpose: the bin runs on Node 20 without a TypeScript loader.
//
// A test whose body never returns because it blocks its worker (a synchronous endless
// loop) cannot be stopped by vitest's per-test timeout, whose timer needs that worker's
// event loop. So vitest runs in a child process (lab-test-child.js) whose setup file
// records each test's start and end synchronously; when a test has run past the timeout
// and a grace period, this process ends the child, says which test blocked, and runs again
// with that test failing at once (LAB_HANG_MESSAGE), so the other tests still run and
// vitest's summary counts it as failed. A file that never finishes loading (a loop at a
// module's top level, before any test starts) ends the run with IMPORT_HANG_MESSAGE.
import { fork } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  IMPORT_HANG_MESSAGE,
  LAB_HANG_GRACE_MS,
  LAB_HANG_SILENCE_MS,
  LAB_IMPORT_TIMEOUT_MS,
  LAB_TEST_TIMEOUT_MS,
} from "./lab-test-settings.js";

const CHILD = path.join(import.meta.dirname, "lab-test-child.js");
const POLL_MS = 100;
/** After this many blocking tests in one run, give up rather than restart again. */
const MAX_HUNG_TESTS = 8;

/**
 * @typedef {object} LabTestOptions
 * @property {[string, unknown][]} [reporters] extra vitest reporters (module path, options)
 * @property {number} [hangGraceMs] time past the test timeout before a test counts as blocking
 * @property {number} [importTimeoutMs] time a test file may take to load
 * @property {NodeJS.WritableStream} [stderr] where the watchdog's notices go
 */

/**
 * Runs a lab package's tests as `vitest run` would with the lab config: once, or in watch
 * mode with `--watch`. Resolves with the exit code: vitest's, or 1 when the run had to
 * give up on blocking tests.
 *
 * @param {string} packageDir the starter or solution folder
 * @param {readonly string[]} args vitest CLI arguments (a leading `--` is ignored)
 * @param {LabTestOptions} [options]
 * @returns {Promise<number>}
 */
export async function runLabTests(packageDir, args, options = {}) {
  const stderr = options.stderr ?? process.stderr;
  const grace = options.hangGraceMs ?? LAB_HANG_GRACE_MS;
  const importDeadline = options.importTimeoutMs ?? LAB_IMPORT_TIMEOUT_MS;
  const tempDir = mkdtempSync(path.join(os.tmpdir(), "lab-test-"));
  const progressFile = path.join(tempDir, "progress.ndjson");
  const hungFile = path.join(tempDir, "hung.json");
  /** @type {string[]} keys of the tests found blocking in the current run */
  let hung = [];
  writeFileSync(progressFile, "");
  writeFileSync(hungFile, "[]");
  const job = {
    packageDir,
    args: args.filter((arg, index) => !(index === 0 && arg === "--")),
    progressFile,
    hungFile,
    reporters: options.reporters ?? [],
  };
  // Ended from outside (a closed terminal, a test harness): `finally` would not run, so
  // remove the temp folder here; the "exit" listener of runChild ends the child.
  const onSignal = (/** @type {NodeJS.Signals} */ signal) => {
    rmSync(tempDir, { recursive: true, force: true });
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  };
  // `on`, not `once`: a second signal while exiting must not fall back to the default death.
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  try {
    for (;;) {
      const attempt = await runChild(job, { grace, load: importDeadline }, () => {
        hung = [];
        writeFileSync(hungFile, "[]");
      });
      if (attempt.kind === "exited") return attempt.code;
      if (attempt.kind === "load-hung") {
        // No rerun: every test of the file needs the module that never finishes loading.
        const file = path.relative(packageDir, attempt.file);
        stderr.write(
          `\n测试文件 ${file} 超过 ${importDeadline} ms 仍未加载完：${IMPORT_HANG_MESSAGE}\n`,
        );
        return 1;
      }
      hung.push(attempt.key);
      writeFileSync(hungFile, JSON.stringify(hung));
      const [, name] = JSON.parse(attempt.key);
      if (hung.length > MAX_HUNG_TESTS) {
        stderr.write(
          `\n测试 "${name}" 也阻塞了事件循环（同步死循环？）：本次已有 ${hung.length} 个测试卡死，不再重跑。先修好循环的退出条件。\n`,
        );
        return 1;
      }
      stderr.write(
        `\n测试 "${name}" 超过 ${LAB_TEST_TIMEOUT_MS} ms 仍未返回，阻塞了事件循环（同步死循环？）。已终止这次运行，把它记为失败后重新运行其余测试：\n\n`,
      );
    }
  } finally {
    process.removeListener("SIGTERM", onSignal);
    process.removeListener("SIGHUP", onSignal);
    rmSync(tempDir, { recursive: true, force: true });
  }
}

/**
 * Runs one child until it exits, or until a test has been running past its own timeout and
 * the grace period (then the child is killed and that test's key returned), or a file has
 * been loading past its deadline (then the child is killed and the file returned).
 *
 * @param {object} job what the child runs (see lab-test-child.js)
 * @param {{ grace: number, load: number }} deadlines ms past its timeout a test may run, ms a file may load
 * @param {() => void} onRunEnd called when vitest finishes a run (watch mode reruns)
 * @returns {Promise<{ kind: "exited", code: number } | { kind: "hung", key: string } | { kind: "load-hung", file: string }>}
 */
function runChild(job, deadlines, onRunEnd) {
  return new Promise((resolve) => {
    const child = fork(CHILD, [], {
      stdio: ["inherit", "inherit", "inherit", "ipc"],
      env: { ...process.env, LAB_KIT_TEST_JOB: JSON.stringify(job) },
      execArgv: [],
    });
    const progress = openSync(job.progressFile, "r");
    /** @type {Map<string, { blockedAt: number, beat: number }>} running tests: when they count as blocking, if silent, and their last beat */
    const running = new Map();
    /** @type {Map<string, number>} files loading and when they were queued */
    const loading = new Map();
    let offset = readAll(progress, 0).length;
    let pending = "";
    let settled = false;
    const finish = (/** @type {Parameters<typeof resolve>[0]} */ value) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      process.removeListener("exit", kill);
      closeSync(progress);
      resolve(value);
    };
    const kill = () => child.kill("SIGKILL");
    process.once("exit", kill);
    // Ctrl-C reaches the child directly (same process group); this process waits for it.
    const ignore = () => undefined;
    process.on("SIGINT", ignore);
    child.on("message", (raw) => {
      const message = /** @type {{ type?: string, file?: string }} */ (raw);
      if (message.type === "module-queued" && message.file) loading.set(message.file, Date.now());
      if (message.type === "module-collected" && message.file) loading.delete(message.file);
      if (message.type === "run-end") {
        running.clear();
        loading.clear();
        onRunEnd();
      }
    });
    /** Ends the child, then settles with `value` (the hang it was ended for). */
    const end = (/** @type {Parameters<typeof resolve>[0]} */ value) => {
      clearInterval(timer);
      child.removeAllListeners("exit");
      process.removeListener("SIGINT", ignore);
      child.once("exit", () => finish(value));
      kill();
    };
    child.on("exit", (code, signal) => {
      process.removeListener("SIGINT", ignore);
      finish({ kind: "exited", code: code ?? (signal === "SIGINT" ? 130 : 1) });
    });
    const timer = setInterval(() => {
      const fresh = readAll(progress, offset);
      offset += fresh.length;
      const lines = (pending + fresh.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        if (line === "") continue;
        const entry = /** @type {{ event: string, key: string, at: number, timeout?: number }} */ (
          JSON.parse(line)
        );
        const timeout = Math.max(entry.timeout ?? 0, LAB_TEST_TIMEOUT_MS);
        if (entry.event === "start") {
          running.set(entry.key, {
            blockedAt: entry.at + timeout + deadlines.grace,
            beat: entry.at,
          });
        } else if (entry.event === "beat") {
          const test = running.get(entry.key);
          if (test !== undefined) test.beat = entry.at;
        } else running.delete(entry.key);
      }
      const now = Date.now();
      for (const [key, test] of running) {
        // Past its timeout and silent: blocked. Still beating: only waiting; vitest's own
        // timeout ends it, however late a busy machine lets that happen.
        if (now >= test.blockedAt && now - test.beat >= LAB_HANG_SILENCE_MS) {
          return end({ kind: "hung", key });
        }
      }
      for (const [file, queuedAt] of loading) {
        if (now - queuedAt >= deadlines.load) return end({ kind: "load-hung", file });
      }
    }, POLL_MS);
  });
}

/**
 * The bytes of a file from `offset` on.
 * @param {number} fd
 * @param {number} offset
 * @returns {Buffer}
 */
function readAll(fd, offset) {
  const chunks = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (let position = offset; ; ) {
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
    position += read;
  }
  return Buffer.concat(chunks);
}
