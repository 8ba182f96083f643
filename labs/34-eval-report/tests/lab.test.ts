import {
  buildReport,
  type EvalTask,
  formatTerminalReport,
  runTasks,
  type TaskResult,
} from "@coding-agent/eval";
import { passRateOf, stopKindOf } from "@lab";
import { describe, expect, it } from "vitest";

/** A task result as the report sees it: only `passed` and `status` matter to the pass rate. */
const result = (passed: boolean, status = passed ? "completed" : "failed") => ({ passed, status });

describe("stopKindOf", () => {
  it("gives no stop kind to a completed run, even one whose graders failed", () => {
    expect(stopKindOf({ status: "completed", code: "finished" })).toBeUndefined();
  });

  it.each([
    ["failed", "tool_error"],
    ["failed", "finish_rejected"],
    ["budget_exceeded", "max_steps"],
    ["budget_exceeded", "max_cost"],
  ])("puts %s/%s under capability: the agent did not get there", (status, code) => {
    expect(stopKindOf({ status, code }), `${status}/${code} 是 Agent 自己没做到`).toBe(
      "capability",
    );
  });

  it("puts blocked/permission_denied under safety: a policy stopped the agent", () => {
    expect(stopKindOf({ status: "blocked", code: "permission_denied" }), "被拦住不是能力不够").toBe(
      "safety",
    );
  });

  it("puts a refused permission under safety, whatever the status says", () => {
    expect(
      stopKindOf({ status: "failed", code: "permission_denied" }),
      "停止代码是 permission_denied：拦住它的是权限，不是能力",
    ).toBe("safety");
  });

  it.each([
    ["error", "timeout"],
    ["error", "crash"],
    ["cancelled", "cancelled"],
  ])("puts %s/%s under harness: the eval got no verdict", (status, code) => {
    expect(
      stopKindOf({ status, code }),
      `${status}/${code} 是评测框架没拿到结论，不是 Agent 失败`,
    ).toBe("harness");
  });
});

describe("passRateOf", () => {
  it("counts the passed tasks over every task of the suite, timeouts and crashes included", () => {
    const results = [result(true), result(true), result(false), result(false, "error")];
    expect(passRateOf(results), "4 个任务通过了 2 个：崩溃的任务也是没有通过的任务").toBe(0.5);
  });

  it("is a share between 0 and 1, not a percentage", () => {
    expect(passRateOf([result(true), result(false), result(false), result(false)])).toBe(0.25);
  });

  it("is 1 when every task passed", () => {
    expect(passRateOf([result(true), result(true), result(true)])).toBe(1);
  });

  it("is 0 for an empty suite, not NaN", () => {
    expect(passRateOf([]), "没有任务：通过率是 0").toBe(0);
  });
});

/**
 * A stand-in for `coding-agent run`: the harness starts it as `node -e <script> run <goal> …`.
 * Goal `status:<status>/<code>` ends with that RunResult, `crash` prints nothing and exits 2,
 * `hang` never ends (the task's timeout stops it).
 */
const FAKE_AGENT = `
const goal = process.argv[2] ?? "";
const print = (status, code) => process.stdout.write(JSON.stringify({ status, code, runId: "fake" }));
if (goal === "hang") setInterval(() => {}, 1000);
else if (goal === "crash") { process.stderr.write("boom\\n"); process.exitCode = 2; }
else if (goal.startsWith("status:")) { const [s, c] = goal.slice(7).split("/"); print(s, c); }
else print("completed", "finished");
`;
const runner = { command: process.execPath, args: ["-e", FAKE_AGENT] };
const never = new AbortController().signal;

const evalTask = (id: string, goal: string): EvalTask => ({
  id,
  goal,
  testCommand: "true",
  allowPaths: [],
  forbiddenPaths: [],
  args: [],
  expectStatus: "completed",
  timeoutMs: 500,
  files: [{ path: "README.md", base64: Buffer.from("hi\n").toString("base64"), executable: false }],
});

let suite: Promise<readonly TaskResult[]> | undefined;
/** Six real tasks through the capstone's harness, run once for the tests below. */
function realSuite(): Promise<readonly TaskResult[]> {
  suite ??= runTasks(
    [
      evalTask("fixed", "ok"),
      evalTask("gave-up", "status:failed/finish_rejected"),
      evalTask("out-of-steps", "status:budget_exceeded/max_steps"),
      evalTask("refused", "status:blocked/permission_denied"),
      evalTask("crashed", "crash"),
      evalTask("stuck", "hang"),
    ],
    { runner, concurrency: 3, signal: never },
  ).then((outcome) => (outcome.kind === "done" ? outcome.results : []));
  return suite;
}

describe("the report of a real suite", () => {
  it("counts its stops under capability, safety and harness, as the capstone does", async () => {
    const results = await realSuite();
    const yours = buildReport({ suite: "real", results, classify: stopKindOf });
    const capstone = buildReport({ suite: "real", results });
    expect(
      yours.stops,
      "finish_rejected 与 max_steps 是能力，blocked 是安全，崩溃与超时是评测框架",
    ).toEqual({
      capability: 2,
      safety: 1,
      harness: 2,
    });
    expect(yours.stops).toEqual(capstone.stops);
    expect(formatTerminalReport(yours)).toContain("停止原因：能力 2 · 安全 1 · 评测框架 2");
  }, 15_000);

  it("gives the capstone's pass rate: the crash and the timeout count as not passed", async () => {
    const results = await realSuite();
    expect(results.map((r) => r.status)).toContain("error");
    expect(passRateOf(results), "6 个任务通过了 1 个").toBe(
      buildReport({ suite: "real", results }).passRate,
    );
    expect(passRateOf(results)).toBeCloseTo(1 / 6);
  }, 15_000);
});
