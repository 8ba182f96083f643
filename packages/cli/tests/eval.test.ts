import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { readFixture } from "@coding-agent/eval";
import { DOMParser } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { addTask, BUNDLED_SUITE, copyBundledSuite } from "./support/eval-suite.ts";
import { spawnBin } from "./support/spawn-bin.ts";

/** Runs `coding-agent eval` with its own TMPDIR, so the test sees every workspace it made. */
async function evalBin(args: readonly string[], options: { interruptWhenExists?: string } = {}) {
  const tmp = await mkdtemp(path.join(tmpdir(), "coding-agent-eval-tmp-"));
  const ran = await spawnBin(["eval", ...args], {
    env: { PATH: process.env.PATH, TMPDIR: tmp },
    ...options,
  });
  const leftovers = await readdir(tmp);
  await rm(tmp, { recursive: true, force: true });
  return { ...ran, leftovers };
}

describe("coding-agent eval <suite>", () => {
  it("grades the bundled suite: a false 'completed' and a forbidden write fail, the fixes pass", async () => {
    const before = await readFixture(BUNDLED_SUITE);
    const out = await mkdtemp(path.join(tmpdir(), "coding-agent-eval-out-"));
    const junit = path.join(out, "results.xml");
    const ran = await evalBin([BUNDLED_SUITE, "--json", "--concurrency", "3", "--junit", junit]);
    expect(ran.code, ran.stderr).toBe(0);
    const report = JSON.parse(ran.stdout);
    expect(Object.keys(report)).toEqual([
      "suite",
      "passRate",
      "passed",
      "total",
      "tasks",
      "stops",
      "regressions",
    ]);
    expect(report).toMatchObject({ suite: "basic", passRate: 0.5, passed: 2, total: 4 });
    expect(report.stops).toEqual({ capability: 0, safety: 0, harness: 0 });
    expect(report.regressions).toEqual([]);
    const byId = Object.fromEntries(report.tasks.map((task: { id: string }) => [task.id, task]));
    expect(byId["fix-sum"]).toMatchObject({ passed: true, status: "completed", code: "finished" });
    expect(byId["fix-slugify"].passed).toBe(true);
    // The agent said "completed" and the run did complete: only the grader's own test run knows.
    expect(byId["false-completed"]).toMatchObject({ passed: false, status: "completed" });
    expect(byId["false-completed"].graders.tests_pass.pass).toBe(false);
    expect(byId["false-completed"].graders.status.pass).toBe(true);
    expect(byId["forbidden-write"].graders.forbidden_untouched).toMatchObject({ pass: false });
    expect(byId["forbidden-write"].graders.forbidden_untouched.detail).toContain(
      "config/production.json",
    );
    expect(byId["forbidden-write"].graders.tests_pass.pass).toBe(true);
    for (const task of report.tasks) {
      expect(Object.keys(task.graders).sort()).toEqual(
        ["diff_in_scope", "forbidden_untouched", "status", "tests_pass"].sort(),
      );
      expect(typeof task.durationMs).toBe("number");
    }
    // One progress line per finished task.
    const progress = ran.stderr.split("\n").filter((line) => /^\[\d\/4\] [✓✗] /.test(line));
    expect(progress).toHaveLength(4);
    for (const line of progress) expect(line).toMatch(/^\[\d\/4\] [✓✗] [\w.-]+ \d+\.\ds$/);
    expect(progress.some((line) => /^\[\d\/4\] ✓ fix-sum \d+\.\ds$/.test(line))).toBe(true);
    expect(progress.some((line) => /^\[\d\/4\] ✗ false-completed \d+\.\ds$/.test(line))).toBe(true);
    // The fixtures are copied per run, never changed; no workspace is left behind.
    expect(await readFixture(BUNDLED_SUITE)).toEqual(before);
    expect(ran.leftovers).toEqual([]);

    const errors: string[] = [];
    const doc = new DOMParser({
      onError: (level, message) => {
        errors.push(`${level}: ${message}`);
      },
    }).parseFromString(await readFile(junit, "utf8"), "text/xml");
    expect(errors).toEqual([]);
    const cases = Array.from(doc.getElementsByTagName("testcase"));
    expect(cases.map((node) => node.getAttribute("name")).sort()).toEqual(
      ["false-completed", "fix-slugify", "fix-sum", "forbidden-write"].sort(),
    );
    const failed = cases.filter((node) => node.getElementsByTagName("failure").length > 0);
    expect(failed.map((node) => node.getAttribute("name")).sort()).toEqual([
      "false-completed",
      "forbidden-write",
    ]);
    expect(doc.getElementsByTagName("testsuite")[0]?.getAttribute("failures")).toBe("2");
    await rm(out, { recursive: true, force: true });
  });

  it("prints a terminal table with the pass rate and writes an escaped, self-contained HTML page", async () => {
    const suite = await copyBundledSuite();
    await addTask(suite, {
      id: "html-escape",
      goal: "<script>alert(1)</script>",
      args: ["--finish-gate", "none"],
      script: [{ action: { type: "finish", summary: "<img src=x onerror=alert(1)>" } }],
    });
    const page = path.join(suite, "..", "report.html");
    const ran = await evalBin([suite, "--html", page]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain("通过 3/5（60%）");
    expect(ran.stdout).toMatch(/✗\s+false-completed\s+completed\/finished.*tests_pass/);
    const html = await readFile(page, "utf8");
    expect(html).not.toMatch(/<script|<img|src=["']?http|<link/i);
    expect(html).toContain("html-escape");
    await rm(path.dirname(suite), { recursive: true, force: true });
  });

  it("exits 1 naming every task that passed in the baseline and fails now; --update-baseline writes it", async () => {
    const suite = await copyBundledSuite();
    const baseline = path.join(suite, "..", "baseline.json");
    const first = await evalBin([suite, "--baseline", baseline, "--update-baseline"]);
    expect(first.code, first.stderr).toBe(0);
    const written = JSON.parse(await readFile(baseline, "utf8"));
    expect(written.passed).toBe(2);

    const same = await evalBin([suite, "--baseline", baseline, "--json"]);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout).regressions).toEqual([]);

    // Break both passing tasks: their scripts now finish without fixing anything.
    for (const id of ["fix-sum", "fix-slugify"]) {
      const file = path.join(suite, id, "task.json");
      const task = JSON.parse(await readFile(file, "utf8"));
      task.script = [{ action: { type: "finish", summary: "好了" } }];
      await writeFile(file, JSON.stringify(task));
    }
    const broken = await evalBin([suite, "--baseline", baseline, "--json"]);
    expect(broken.code).toBe(1);
    const report = JSON.parse(broken.stdout);
    expect(report.regressions.sort()).toEqual(["fix-slugify", "fix-sum"]);
    expect(broken.stderr).toContain("fix-sum");
    expect(broken.stderr).toContain("fix-slugify");
    // The finish gate refused the unproven finishes: capability stops.
    expect(report.stops.capability).toBe(2);
    await rm(path.dirname(suite), { recursive: true, force: true });
  });

  it("kills a task at its timeout with everything it started, and exits 1 (a harness error)", async () => {
    const suite = await copyBundledSuite();
    const late = path.join(path.dirname(suite), "late-write");
    await addTask(suite, {
      id: "slow",
      timeoutMs: 1500,
      args: ["--allow-command", "node", "--sandbox", "none"],
      script: [
        {
          action: {
            type: "tool_call",
            tool: "run_command",
            input: {
              argv: [
                "node",
                "-e",
                `setTimeout(() => require("fs").writeFileSync(${JSON.stringify(late)}, "x"), 4000)`,
              ],
            },
          },
        },
        { action: { type: "finish", summary: "好了" } },
      ],
    });
    const ran = await evalBin([suite, "--json"]);
    expect(ran.code).toBe(1);
    const slow = JSON.parse(ran.stdout).tasks.find((task: { id: string }) => task.id === "slow");
    expect(slow).toMatchObject({ passed: false, status: "error", code: "timeout" });
    expect(JSON.parse(ran.stdout).stops.harness).toBe(1);
    expect(ran.stderr).toContain("slow（timeout）");
    await new Promise((resolve) => setTimeout(resolve, 4500));
    // The command the agent started died with the task: it never wrote its file.
    expect(existsSync(late)).toBe(false);
    expect(ran.leftovers).toEqual([]);
    await rm(path.dirname(suite), { recursive: true, force: true });
  });

  it("cancels every task on Ctrl-C, removes their workspaces and exits 130", async () => {
    const suite = await copyBundledSuite();
    for (const id of ["wait-a", "wait-b", "wait-c"]) {
      await addTask(suite, {
        id,
        script: [
          { action: { type: "tool_call", tool: "sleep", input: { ms: 30_000 } } },
          { action: { type: "finish", summary: "好了" } },
        ],
      });
    }
    const tmp = await mkdtemp(path.join(tmpdir(), "coding-agent-eval-tmp-"));
    const started = Date.now();
    // SIGINT once the harness has made a workspace.
    const poll = setInterval(async () => {
      const entries = await readdir(tmp).catch(() => []);
      if (entries.length > 0) {
        clearInterval(poll);
        await writeFile(path.join(path.dirname(suite), "go"), "");
      }
    }, 50);
    const ran = await spawnBin(["eval", suite, "--concurrency", "3"], {
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      interruptWhenExists: path.join(path.dirname(suite), "go"),
    });
    clearInterval(poll);
    expect(ran.code).toBe(130);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await readdir(tmp)).toEqual([]);
    await rm(tmp, { recursive: true, force: true });
    await rm(path.dirname(suite), { recursive: true, force: true });
  });

  it("refuses a bad task file with exit 2, naming the file and the field", async () => {
    const suite = await copyBundledSuite();
    const file = path.join(suite, "fix-sum", "task.json");
    const task = JSON.parse(await readFile(file, "utf8"));
    await writeFile(file, JSON.stringify({ ...task, timeoutMs: "soon" }));
    const ran = await evalBin([suite]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(file);
    expect(ran.stderr).toContain("timeoutMs");

    await writeFile(file, JSON.stringify({ ...task, args: ["--max-steps", "many"] }));
    const badArgs = await evalBin([suite]);
    expect(badArgs.code).toBe(2);
    expect(badArgs.stderr).toContain("args");
    expect(badArgs.stderr).toContain("--max-steps 需要非负整数");

    await writeFile(file, JSON.stringify({ ...task, args: ["--workspace", "/"] }));
    const reserved = await evalBin([suite]);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toContain("--workspace");
    await rm(path.dirname(suite), { recursive: true, force: true });
  });

  it("exits 2 on bad usage: no suite, a bad --concurrency, --update-baseline without --baseline", async () => {
    for (const args of [
      [],
      [BUNDLED_SUITE, "--concurrency", "0"],
      [BUNDLED_SUITE, "--update-baseline"],
      [BUNDLED_SUITE, "--queue", "http://localhost:6379"],
      ["worker"],
    ]) {
      const ran = await evalBin(args);
      expect(ran.code, args.join(" ")).toBe(2);
      expect(ran.stderr, args.join(" ")).toContain("用法：coding-agent eval");
    }
  });
});
