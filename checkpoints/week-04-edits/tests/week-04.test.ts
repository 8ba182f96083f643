import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { leftInCallersHome } from "@bootcamp/checkpoint-shared/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { fixScript, runOnFixture, runWeek04, TRANSACTION_SCRIPT } from "../src/run-week-04.ts";
import {
  BUGGY_FILE,
  judgeWeek04,
  TEST_FILE,
  WEEK_04_SUMMARY,
  type Week04Run,
} from "../src/week-04.ts";

const EVIDENCE = [
  "run_tests→passed=1,failed=1",
  "read_file:src/sum.js→totalLines=4",
  "edit_file:src/sum.js→+1 -1",
  "run_tests→passed=2,failed=0",
  "fix exit:0",
  "apply_edits→not_found_text",
  "unchanged:src/sum.js,test/sum.test.js",
];

let real: Week04Run;
beforeAll(async () => {
  real = await runWeek04();
});

/** The fix script with turn `index` replaced. */
async function fixWithTurn(index: number, action: unknown) {
  const script = await fixScript();
  return script.map((turn, i) => (i === index ? { action } : turn));
}

/** The verdict when the fix run follows `script` and the transaction run is the real one. */
async function judgeFix(script: unknown[]) {
  return judgeWeek04({ fix: await runOnFixture(script), transaction: real.transaction });
}

const reasonOf = (verdict: ReturnType<typeof judgeWeek04>) => (verdict.ok ? "" : verdict.reason);

describe("judgeWeek04", () => {
  it("passes the real checkpoint runs and prints exactly the two expected lines", () => {
    const verdict = judgeWeek04(real);
    expect(verdict).toEqual({ week: 4, ok: true, summary: WEEK_04_SUMMARY, evidence: EVIDENCE });
    expect(formatVerdict(verdict)).toEqual([
      `第 4 周检查点通过：${WEEK_04_SUMMARY}`,
      JSON.stringify({ week: 4, ok: true, summary: WEEK_04_SUMMARY, evidence: EVIDENCE }),
    ]);
  });

  it("keeps the runs' records out of the caller's $CODING_AGENT_HOME", async () => {
    expect(await leftInCallersHome(() => runOnFixture(TRANSACTION_SCRIPT))).toEqual([]);
  });

  it("fails when the edit does not apply (the old text is not in the file)", async () => {
    const edit = { path: BUGGY_FILE, old: "return a-b;", new: "return a + b;" };
    const verdict = await judgeFix(
      await fixWithTurn(2, { type: "tool_call", tool: "edit_file", input: edit }),
    );
    expect(reasonOf(verdict)).toBe("edit_file 没有成功：not_found_text");
  });

  it("fails when the edit does not carry the hash read_file reported", async () => {
    const edit = { path: BUGGY_FILE, old: "return a - b;", new: "return a + b;" };
    const verdict = await judgeFix(
      await fixWithTurn(2, { type: "tool_call", tool: "edit_file", input: edit }),
    );
    expect(reasonOf(verdict)).toBe("edit_file 的 expectedHash 不是 read_file 读到的 hash");
  });

  it("fails when the tests still fail after the edit", async () => {
    const script = await fixScript();
    const wrongFix = JSON.parse(JSON.stringify(script).replace("return a + b;", "return a * b;"));
    const verdict = await judgeFix(wrongFix);
    expect(reasonOf(verdict)).toBe("编辑之后 run_tests 应全部通过");
  });

  it("fails when apply_edits applies both edits (nothing failed to roll back)", async () => {
    const bothApply = JSON.parse(
      JSON.stringify(TRANSACTION_SCRIPT).replace("this text is not in the test file", "sum(7, 0)"),
    );
    const verdict = judgeWeek04({ fix: real.fix, transaction: await runOnFixture(bothApply) });
    expect(reasonOf(verdict)).toBe("第二处编辑无法应用时 apply_edits 应返回错误");
  });

  it("fails when a file changed although apply_edits failed", () => {
    const { transaction } = real;
    const changed = {
      ...transaction,
      after: { ...transaction.after, [TEST_FILE]: "0".repeat(64) },
    };
    expect(reasonOf(judgeWeek04({ ...real, transaction: changed }))).toBe(
      `apply_edits 失败后 ${TEST_FILE} 被改动了：应全部回滚`,
    );
  });

  it("fails, with the exit codes as evidence, when the output is not a RunResult", () => {
    const broken = { exitCode: 2, stdout: "用法错误", before: {}, after: {} };
    expect(judgeWeek04({ fix: broken, transaction: broken })).toEqual({
      week: 4,
      ok: false,
      summary: WEEK_04_SUMMARY,
      evidence: ["fix exit:2", "unchanged:"],
      reason: "coding-agent run --json 的输出不是 RunResult",
    });
  });
});
