// `pnpm lesson watch NN` end to end, as a learner starts it (the root script, on the real
// lab 05 starter): vitest's watch run, then the hint reporter's line, which vitest loads by
// path in lab-test's child process. That load once failed on every run (the reporter's
// imports reach @coding-agent/* packages, which resolve only under the source condition)
// while every test of the pieces passed.
import { spawn } from "node:child_process";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";
import { expect, it } from "vitest";

const repoRoot = path.resolve(import.meta.dirname, "..", "..", "..", "..");

/** Runs `pnpm lesson watch 05`'s command until its output matches `until` (or it exits). */
function watch(until: RegExp): Promise<{ output: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@coding-agent/source", "scripts/lesson.ts", "watch", "05"],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (until.test(stripVTControlCharacters(output)) && child.pid !== undefined) {
        process.kill(-child.pid, "SIGTERM");
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => resolve({ output: stripVTControlCharacters(output), code }));
  });
}

it("pnpm lesson watch 05 runs the starter's tests and prints the hint for the first failure", async () => {
  const { output } = await watch(/第一个失败的测试：[^\n]*\n[^\n]*提示/);
  expect(output).not.toContain("Failed to load custom Reporter");
  expect(output).toContain("Tests  1 failed | 3 passed (4)");
  expect(output).toContain(
    "第一个失败的测试：runAgent > writes a tool result into the next request's observations and completes",
  );
  expect(output).toMatch(/提示 \d\/4：/);
}, 120_000);
