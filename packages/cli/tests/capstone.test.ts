/**
 * The capstone (lesson 40) end to end: the fixture no earlier lesson uses (`fix-paginate`,
 * a TypeScript library tested by `node --test`) fixed by the whole agent through the CLI,
 * reported by `coding-agent trace`, and graded by `coding-agent eval` with the week-7 suite.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkTrace } from "@coding-agent/agent-core";
import {
  diffSnapshots,
  type EvalReport,
  readFixture,
  snapshotFixture,
  snapshotWorkspace,
} from "@coding-agent/eval";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TraceReport } from "../src/index.ts";
import { readRunRecords } from "../src/run-evidence.ts";
import { call, captureCli } from "./support/run-cli.ts";
import { runArgv, UNATTENDED } from "./support/scripted-run.ts";

const EXAMPLES = join(
  dirname(createRequire(import.meta.url).resolve("@coding-agent/eval/package.json")),
  "examples",
);
const TASK = join(EXAMPLES, "capstone", "fix-paginate");
const SCRIPT = join(TASK, "script.json");

let base: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "capstone-")));
}, 60_000);
afterAll(() => rm(base, { recursive: true, force: true }), 60_000);

async function fixtureCopy(name: string): Promise<string> {
  const workspace = join(base, name);
  await cp(join(TASK, "repo"), workspace, { recursive: true });
  return workspace;
}

const runFlags = (script: string, workspace: string) =>
  runArgv("修好 paginate：最后一页不满也是一页，测试都要通过", script, workspace, ...UNATTENDED);

describe("the capstone fixture end to end", () => {
  let runId = "";

  it("coding-agent run fixes fix-paginate through the finish gate, with the task's committed script", async () => {
    const workspace = await fixtureCopy("fixed");
    const { code, result, stderr } = await captureCli(runFlags(SCRIPT, workspace));
    expect(code, stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", code: "finished" });
    expect(result.evidence.tests).toMatchObject({ passed: 6, failed: 0, skipped: 0 });
    expect(result.evidence.tests.version).toBe(result.evidence.endVersion);
    expect(result.evidence.changedFiles).toEqual(["src/paginate.ts"]);
    const fixture = snapshotFixture(await readFixture(join(TASK, "repo")));
    expect(diffSnapshots(fixture, await snapshotWorkspace(workspace)), "the real patch").toEqual([
      { path: "src/paginate.ts", change: "modified" },
    ]);
    for (const test of ["test/paginate.test.ts", "test/errors.test.ts"]) {
      const after = await readFile(join(workspace, test), "utf8");
      expect(after, `${test} 没有被改动`).toBe(await readFile(join(TASK, "repo", test), "utf8"));
    }
    expect(await readFile(join(workspace, "src/paginate.ts"), "utf8")).toContain(
      "Math.ceil(items.length / perPage)",
    );
    runId = result.runId;
    const records = await readRunRecords(result.runDir);
    expect(records.ok && records.warnings, "the run's records").toEqual([]);
    const { state, trace } = records.ok ? records : { state: [], trace: [] };
    expect(checkTrace(trace), "a whole trace").toEqual({ ok: true, events: trace.length });
    expect(new Set(trace.map((event) => event.runId))).toEqual(new Set([runId]));
    expect(state.map((event) => event.type).at(0)).toBe("run_started");
    expect(state.at(-1)).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("coding-agent trace --json and --html report the run", async () => {
    expect(runId, "the run of the previous test").not.toBe("");
    const json = await captureCli(["trace", runId, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.result).toMatchObject({
      runId,
      status: "completed",
      totals: { steps: 6, toolCalls: 5, toolErrors: 0, rejections: 0 },
    });
    const timeline = json.result.timeline as TraceReport["timeline"];
    const tools = timeline
      .flatMap((item) => (item.kind === "step" ? item.step.entries : []))
      .flatMap((entry) => (entry.kind === "tool" ? [entry.call.tool] : []));
    expect(tools).toEqual(["list_files", "run_tests", "read_file", "edit_file", "run_tests"]);
    const page = join(base, "report.html");
    const html = await captureCli(["trace", runId, "--html", page]);
    expect(html.code, html.stderr).toBe(0);
    const text = await readFile(page, "utf8");
    expect(text).toContain(runId);
    expect(text).toContain("edit_file");
    expect(text, "self-contained: nothing fetched").not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  });

  const baseline = () => join(base, "baseline.json");
  const row = (id: string, report: EvalReport) => report.tasks.find((task) => task.id === id);

  it("coding-agent eval grades the week-7 suite with the capstone task, and writes the baseline", async () => {
    const suite = join(base, "suite");
    await cp(join(EXAMPLES, "basic"), suite, { recursive: true });
    await cp(TASK, join(suite, "fix-paginate"), { recursive: true });
    const graded = await captureCli([
      "eval",
      suite,
      "--json",
      "--baseline",
      baseline(),
      "--update-baseline",
    ]);
    expect(graded.code, graded.stderr).toBe(0);
    expect(graded.result).toMatchObject({ total: 5, passed: 3, regressions: [] });
    const passed = (graded.result as EvalReport).tasks.filter((task) => task.passed);
    expect(passed.map((task) => task.id)).toEqual(["fix-paginate", "fix-slugify", "fix-sum"]);
    expect(row("fix-paginate", graded.result)).toMatchObject({ status: "completed" });
    const written = JSON.parse(await readFile(baseline(), "utf8")) as EvalReport;
    expect(row("fix-paginate", written)?.passed, "the baseline holds the capstone task").toBe(true);
  });

  it("an agent that skips the failing tests completes, and the graders and the baseline catch it", async () => {
    // The tests pass because the failing ones are skipped: the run completes (the gate's
    // default --allow-path is the whole workspace), the graders do not.
    const suite = join(base, "skipping");
    await cp(TASK, join(suite, "fix-paginate"), { recursive: true });
    const skip = (name: string) => ({
      path: "test/paginate.test.ts",
      old: `test("${name}", () => {`,
      new: `test("${name}", { skip: true }, () => {`,
    });
    const skipping = [
      call("apply_edits", {
        edits: [
          skip("the last page may be shorter than perPage"),
          skip("a page before a short last page has a next page"),
        ],
      }),
      call("run_tests", {}),
      { action: { type: "finish", summary: "测试全部通过" } },
    ];
    await writeFile(join(suite, "fix-paginate", "script.json"), JSON.stringify(skipping));
    expect(existsSync(baseline()), "the baseline of the previous test").toBe(true);
    const gated = await captureCli(["eval", suite, "--json", "--baseline", baseline()]);
    expect(gated.code, "a regression exits 1").toBe(1);
    expect(gated.result.regressions).toEqual(["fix-paginate"]);
    expect(row("fix-paginate", gated.result)).toMatchObject({
      passed: false,
      status: "completed",
      graders: { forbidden_untouched: { pass: false }, diff_in_scope: { pass: false } },
    });
    expect(gated.stderr).toContain("fix-paginate");
  });

  it("a finish before any test run is rejected by the gate, and the run goes on to the fix", async () => {
    const workspace = await fixtureCopy("rejected");
    const turns = JSON.parse(await readFile(SCRIPT, "utf8")) as unknown[];
    const early = [{ action: { type: "finish", summary: "应该好了" } }, ...turns];
    const script = join(base, "early-finish.json");
    await writeFile(script, JSON.stringify(early));
    const { code, result, stderr } = await captureCli(runFlags(script, workspace));
    expect(code, stderr).toBe(0);
    const rejections = (result.messages as Array<Record<string, unknown>>).filter(
      (message) => message.type === "finish_rejected",
    );
    expect(rejections).toHaveLength(1);
    expect(rejections[0]?.reasons).toEqual(["no_test_evidence"]);
    expect(result.evidence.tests).toMatchObject({ passed: 6, failed: 0 });
  });
});

describe("readRunRecords reads a run's folder as evidence, judging nothing", () => {
  const runDir = async (name: string, state: string, trace: string) => {
    const dir = join(base, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "state.jsonl"), state);
    await writeFile(join(dir, "trace.jsonl"), trace);
    return dir;
  };
  const started = JSON.stringify({
    seq: 1,
    type: "run_started",
    runId: "r1",
    startedAt: "2026-01-01T00:00:00.000Z",
    goal: "g",
    workspace: "/w",
    options: {},
    startVersion: "v0",
  });
  const event = (seq: number, runId = "r1") =>
    JSON.stringify({ seq, atMs: seq, runId, type: "model_started", step: 1 });

  it("gives back a trace with a seq gap and another run's event as written, for the checks to judge", async () => {
    const dir = await runDir("gap", `${started}\n`, `${event(1)}\n${event(3, "r2")}\n`);
    const records = await readRunRecords(dir);
    expect(records.ok && records.trace.map((line) => [line.seq, line.runId])).toEqual([
      [1, "r1"],
      [3, "r2"],
    ]);
    expect(records.ok && checkTrace(records.trace).ok).toBe(false);
  });

  it("leaves out a torn last trace line with a warning, and refuses a broken line in the middle", async () => {
    const torn = await readRunRecords(
      await runDir("torn", `${started}\n`, `${event(1)}\n{"seq":2,"at`),
    );
    expect(torn.ok && torn.trace.length).toBe(1);
    expect(torn.ok && torn.warnings.join()).toContain("不完整");
    const broken = await readRunRecords(
      await runDir("broken", `${started}\n`, `${event(1)}\n{oops\n${event(2)}\n`),
    );
    expect(broken).toMatchObject({ ok: false });
    expect(!broken.ok && broken.message).toContain("第 2 行");
    const notEvent = await readRunRecords(
      await runDir("not-event", `${started}\n`, `${JSON.stringify({ seq: 1 })}\n`),
    );
    expect(!notEvent.ok && notEvent.message).toContain("不是 trace 事件");
  });

  it("names the folder when there is nothing to read", async () => {
    const missing = await readRunRecords(join(base, "no-such-run"));
    expect(missing).toMatchObject({ ok: false });
    expect(!missing.ok && missing.message).toContain("no-such-run");
  });
});
