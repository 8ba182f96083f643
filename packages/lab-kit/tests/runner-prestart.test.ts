import { fork, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import path from "node:path";
import { expect, it, vi } from "vitest";
import { runLabTargets } from "../src/runner.ts";
import { prestartRunner } from "../src/runner-prestart.ts";
import { copyFixture } from "./fixture-repo.ts";

vi.mock("node:child_process", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:child_process")>();
  return { ...actual, fork: vi.fn(actual.fork) };
});

it("hands the prestarted vitest process to the next run instead of starting another", async () => {
  const { root, dir: labDir } = await copyFixture("runner-lab");
  try {
    prestartRunner();
    expect(fork).toHaveBeenCalledTimes(1);
    const [good] = await runLabTargets([
      { label: "good", labDir, packageDir: path.join(labDir, "good") },
    ]);
    expect(fork).toHaveBeenCalledTimes(1);
    expect(good?.tests.map((test) => test.state)).toEqual(["passed", "passed", "passed", "passed"]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);

/** Whether a process with this pid still runs (a killed child may take a moment to go). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; alive() && waited < ms; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !alive();
}

it("ends the prestarted process at once when a run has nothing to do", async () => {
  const pid = prestartRunner();
  expect(pid).toBeGreaterThan(0);
  expect(await runLabTargets([])).toEqual([]);
  // It would otherwise go on loading vitest until this test process exits.
  expect(await goneWithin(pid ?? 0, 5_000)).toBe(true);
});

it("never keeps its process alive when left unused, and the unused child ends with it", async () => {
  const script = [
    `import { prestartRunner } from ${JSON.stringify(path.join(import.meta.dirname, "..", "src", "runner-prestart.ts"))};`,
    "console.log(prestartRunner());",
  ].join("\n");
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: path.join(import.meta.dirname, ".."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(-1);
    }, 20_000);
    child.on("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  // -1: still running after 20 s, kept alive by the unused child.
  expect(code).toBe(0);
  const pid = Number(stdout.trim());
  expect(pid).toBeGreaterThan(0);
  expect(await goneWithin(pid, 10_000)).toBe(true);
}, 60_000);
