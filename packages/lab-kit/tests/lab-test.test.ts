import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Writable } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLabTests } from "../src/lab-test.js";
import { IMPORT_HANG_MESSAGE, LAB_HANG_MESSAGE } from "../src/lab-test-settings.js";
import { copyFixture } from "./fixture-repo.ts";

// Timeouts below only turn a hang into a failure: each case starts real vitest processes,
// which on a loaded machine take far longer than the seconds they need when idle.
const BIN = path.join(import.meta.dirname, "..", "bin", "lab-test.js");
let root: string;
let labDir: string;

/** A package of the fixture lab: the good sources with some functions replaced. */
async function labPackage(name: string, overrides: Record<string, string>): Promise<string> {
  let source = await readFile(path.join(labDir, "good", "src", "index.ts"), "utf8");
  for (const [fn, body] of Object.entries(overrides)) {
    source = source.replace(new RegExp(`export (async )?function ${fn}\\(.*?\\n}\\n`, "s"), body);
  }
  const dir = path.join(labDir, name);
  await mkdir(path.join(dir, "src"), { recursive: true });
  await writeFile(path.join(dir, "src", "index.ts"), source);
  return dir;
}

const SPIN = "export function spin(): number {\n  for (;;) {}\n}\n";
const NEVER = "export function settle(): Promise<string> {\n  return new Promise(() => {});\n}\n";

interface BinRun {
  readonly code: number | null;
  /** vitest's report: the test tree and summary (stdout) and failure details (stderr). */
  readonly output: string;
  /** The watchdog's notices. */
  readonly stderr: string;
}

/** Runs the real bin in `cwd`; with `until`, kills it once stdout matches (watch mode). */
function runBin(cwd: string, args: readonly string[], until?: RegExp): Promise<BinRun> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (until?.test(stripVTControlCharacters(stdout)) && child.signalCode === null) {
        until = undefined;
        child.kill("SIGTERM");
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("exit", (code) =>
      resolve({
        code,
        output: stripVTControlCharacters(stdout + stderr),
        stderr: stripVTControlCharacters(stderr),
      }),
    );
  });
}

beforeAll(async () => {
  const copy = await copyFixture("runner-lab");
  root = copy.root;
  labDir = copy.dir;
  // A test after the spinning one, to show that the tests after a blocked one still run.
  const tests = path.join(labDir, "tests", "lab.test.ts");
  await writeFile(
    tests,
    `${await readFile(tests, "utf8")}\nit("runs after the spinning test", () => {\n  expect(add(2, 2)).toBe(4);\n});\n`,
  );
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe("lab-test, a lab's own test run", () => {
  it("prints vitest's own output and exits 0 when every test passes", async () => {
    const run = await runBin(path.join(labDir, "good"), []);
    expect(run.output).toMatch(/ RUN {2}v\d+\.\d+\.\d+ /);
    expect(run.output).toContain("✓ ../tests/lab.test.ts (5 tests)");
    expect(run.output).toMatch(/Test Files {2}1 passed \(1\)\n {6}Tests {2}5 passed \(5\)/);
    expect(run.stderr).not.toContain("同步死循环");
    expect(run.code).toBe(0);
  }, 180_000);

  it("fails a test that blocks its worker as 超时（同步死循环？）, and the other tests still run", async () => {
    const run = await runBin(await labPackage("spinning", { spin: SPIN }), []);
    expect(run.stderr).toContain('测试 "stops spinning" 超过 2000 ms 仍未返回');
    expect(run.output).toContain("× stops spinning");
    expect(run.output).toContain("FAIL  ../tests/lab.test.ts > stops spinning");
    expect(run.output).toContain(LAB_HANG_MESSAGE);
    expect(run.output).toContain("✓ runs after the spinning test");
    expect(run.output).toMatch(
      /Test Files {2}1 failed \(1\)\n {6}Tests {2}1 failed \| 4 passed \(5\)/,
    );
    expect(run.code).toBe(1);
  }, 240_000);

  it("leaves a test that only waits too long to vitest's own timeout, without a restart", async () => {
    const run = await runBin(await labPackage("waiting", { settle: NEVER }), []);
    expect(run.output).toContain("× settles");
    expect(run.output).toContain("Test timed out in 2000ms");
    expect(run.output).not.toContain(LAB_HANG_MESSAGE);
    expect(run.stderr).not.toContain("同步死循环");
    expect(run.output).toMatch(/Tests {2}1 failed \| 4 passed \(5\)/);
    expect(run.code).toBe(1);
  }, 180_000);

  it("does not take a waiting test for a blocked one even past its deadline, while its worker beats", async () => {
    const dir = await labPackage("waiting-early", { settle: NEVER });
    let notices = "";
    const stderr = new Writable({
      write(chunk, _encoding, done) {
        notices += String(chunk);
        done();
      },
    });
    // A deadline 1.5 s before vitest's own 2 s timeout, as a busy machine that delays the
    // timeout's report would make it: without the beats the watchdog would end the run at
    // 0.5 s and report the wait as an endless loop.
    const code = await runLabTests(dir, [], { hangGraceMs: -1_500, stderr });
    expect(notices).not.toContain("同步死循环");
    expect(code).toBe(1);
  }, 180_000);

  it("leaves a test that has its own longer timeout running past the default, without taking it for a blocked one", async () => {
    const copy = await copyFixture("runner-lab");
    try {
      const tests = path.join(copy.dir, "tests", "lab.test.ts");
      await writeFile(
        tests,
        'import { expect, it } from "vitest";\n\nit("waits on a slow process", async () => {\n  await new Promise((resolve) => setTimeout(resolve, 5_000));\n  expect(1).toBe(1);\n}, 20_000);\n',
      );
      const run = await runBin(path.join(copy.dir, "good"), []);
      expect(run.stderr).not.toContain("同步死循环");
      expect(run.output).toMatch(/Tests {2}1 passed \(1\)/);
      expect(run.code).toBe(0);
    } finally {
      await rm(copy.root, { recursive: true, force: true });
    }
  }, 240_000);

  it("ends a run whose source loops forever at its top level (before any test) with 1, naming the test file", async () => {
    const dir = await labPackage("top-level-loop", {});
    const source = path.join(dir, "src", "index.ts");
    await writeFile(source, `${await readFile(source, "utf8")}\nfor (;;) {}\n`);
    const run = await runBin(dir, []);
    expect(run.stderr).toContain(
      `测试文件 ${path.join("..", "tests", "lab.test.ts")} 超过 10000 ms 仍未加载完`,
    );
    expect(run.stderr).toContain(IMPORT_HANG_MESSAGE);
    expect(run.code).toBe(1);
  }, 240_000);

  it("in watch mode (vitest's own flag, after pnpm's --) reports a blocking test the same way and keeps watching", async () => {
    const run = await runBin(
      await labPackage("watched", { spin: SPIN }),
      ["--", "--watch"],
      /Tests {2}1 failed \| 4 passed \(5\)[\s\S]*Watching for file changes/,
    );
    expect(run.stderr).toContain('测试 "stops spinning" 超过 2000 ms 仍未返回');
    expect(run.output).toContain(LAB_HANG_MESSAGE);
    expect(run.output).toContain("✓ runs after the spinning test");
    // 143, not a plain SIGTERM death: its handler ran, which removes the temp folder first.
    expect(run.code).toBe(143);
  }, 240_000);
});
