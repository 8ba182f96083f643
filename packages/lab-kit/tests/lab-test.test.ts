import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOOP_TIMEOUT_MESSAGE } from "../src/run/settings.ts";
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
  /** Failure details and notices. */
  readonly stderr: string;
  /** Both streams as printed, escape codes included. */
  readonly raw: string;
}

/**
 * Runs the real bin in `cwd` (with `env` over ours); with `until`, kills it once stdout
 * matches (watch mode).
 */
function runBin(
  cwd: string,
  args: readonly string[],
  until?: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<BinRun> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
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
        raw: stdout + stderr,
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

  it("prints plain text into a pipe, and colours there only when FORCE_COLOR asks", async () => {
    const plain = { NO_COLOR: undefined, FORCE_COLOR: undefined, TERM: "xterm-256color" };
    const piped = await runBin(path.join(labDir, "good"), [], undefined, plain);
    expect(piped.raw).toContain("Tests  5 passed (5)");
    expect(piped.raw).not.toContain("\u001b[");
    const forced = await runBin(path.join(labDir, "good"), [], undefined, {
      ...plain,
      FORCE_COLOR: "1",
    });
    expect(forced.raw).toContain("\u001b[");
  }, 180_000);

  it("fails a test whose loop blocks its worker as 超时（同步死循环？）, and the other tests still run", async () => {
    const started = Date.now();
    const run = await runBin(await labPackage("spinning", { spin: SPIN }), []);
    expect(run.output).toContain("× stops spinning");
    expect(run.output).toContain("FAIL  ../tests/lab.test.ts > stops spinning");
    expect(run.output).toContain(LOOP_TIMEOUT_MESSAGE);
    expect(run.output).toContain("✓ runs after the spinning test");
    expect(run.output).toMatch(
      /Test Files {2}1 failed \(1\)\n {6}Tests {2}1 failed \| 4 passed \(5\)/,
    );
    expect(run.code).toBe(1);
    // One run, no kill and restart: the loop ends where it spins.
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 240_000);

  it("fails a test whose code catches the loop guard's error and goes on, with the same message", async () => {
    const swallow =
      "export function spin(): number {\n  try {\n    for (;;) {}\n  } catch {\n    return 1;\n  }\n}\n";
    const run = await runBin(await labPackage("swallowing", { spin: swallow }), []);
    expect(run.output).toContain("× stops spinning");
    expect(run.output).toContain(LOOP_TIMEOUT_MESSAGE);
    expect(run.code).toBe(1);
  }, 240_000);

  it("leaves a test that only waits too long to vitest's own timeout", async () => {
    const run = await runBin(await labPackage("waiting", { settle: NEVER }), []);
    expect(run.output).toContain("× settles");
    expect(run.output).toContain("Test timed out in 2000ms");
    expect(run.output).not.toContain(LOOP_TIMEOUT_MESSAGE);
    expect(run.output).toMatch(/Tests {2}1 failed \| 4 passed \(5\)/);
    expect(run.code).toBe(1);
  }, 180_000);

  it("leaves a test that has its own longer timeout and a loop that awaits running past the default", async () => {
    const copy = await copyFixture("runner-lab");
    try {
      const tests = path.join(copy.dir, "tests", "lab.test.ts");
      await writeFile(
        tests,
        'import { expect, it } from "vitest";\n\nit("waits on a slow process", async () => {\n  const end = Date.now() + 3_000;\n  while (Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));\n  expect(1).toBe(1);\n}, 20_000);\n',
      );
      const run = await runBin(path.join(copy.dir, "good"), []);
      expect(run.output).not.toContain("同步死循环");
      expect(run.output).toMatch(/Tests {2}1 passed \(1\)/);
      expect(run.code).toBe(0);
    } finally {
      await rm(copy.root, { recursive: true, force: true });
    }
  }, 240_000);

  it("fails the load of a file whose source loops forever at its top level with the same message", async () => {
    const dir = await labPackage("top-level-loop", {});
    const source = path.join(dir, "src", "index.ts");
    await writeFile(source, `${await readFile(source, "utf8")}\nfor (;;) {}\n`);
    const run = await runBin(dir, []);
    expect(run.output).toContain("FAIL  ../tests/lab.test.ts");
    expect(run.output).toContain(LOOP_TIMEOUT_MESSAGE);
    expect(run.code).toBe(1);
  }, 240_000);

  it("in watch mode (vitest's own flag, after pnpm's --) reports an endless loop the same way and keeps watching", async () => {
    const run = await runBin(
      await labPackage("watched", { spin: SPIN }),
      ["--", "--watch"],
      /Tests {2}1 failed \| 4 passed \(5\)[\s\S]*Watching for file changes/,
    );
    expect(run.output).toContain(LOOP_TIMEOUT_MESSAGE);
    expect(run.output).toContain("✓ runs after the spinning test");
  }, 240_000);
});
