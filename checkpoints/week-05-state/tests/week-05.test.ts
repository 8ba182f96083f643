import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { beforeAll, describe, expect, it } from "vitest";
import { runWeek05 } from "../src/run-week-05.ts";
import { CONTEXT_BUDGET, judgeWeek05, WEEK_05_SUMMARY, type Week05Run } from "../src/week-05.ts";

const EVIDENCE = [
  "gate:no_test_evidence→tests_failing→stale_test_evidence→completed",
  "gate evidence:passed=2,failed=0,fresh,changed=src/sum.js",
  "resume:killed by SIGKILL,runs says unfinished",
  "resume:edit_file→ok,run_command→interrupted,run_tests→ok,completed,command started 1×",
  "loop:budget_exceeded/loop_detected,exit 3",
  `context:5 requests,0 over ${CONTEXT_BUDGET} tokens,completed,artifacts ≥3`,
];

let real: Week05Run;
beforeAll(async () => {
  real = await runWeek05();
});

const reasonOf = (run: Week05Run) => {
  const verdict = judgeWeek05(run);
  return verdict.ok ? "" : verdict.reason;
};
/** The run's `--json` result, changed by `edit`. */
const edited = (stdout: string, edit: (result: Record<string, unknown>) => void) => {
  const result = JSON.parse(stdout) as Record<string, unknown>;
  edit(result);
  return JSON.stringify(result);
};
type Message = {
  role: string;
  type?: string;
  tool?: string;
  ok?: boolean;
  error?: { code: string };
};

describe("judgeWeek05", () => {
  it("passes the real checkpoint runs and prints exactly the two expected lines", () => {
    const verdict = judgeWeek05(real);
    expect(verdict).toEqual({ week: 5, ok: true, summary: WEEK_05_SUMMARY, evidence: EVIDENCE });
    expect(formatVerdict(verdict)).toEqual([
      `第 5 周检查点通过：${WEEK_05_SUMMARY}`,
      JSON.stringify({ week: 5, ok: true, summary: WEEK_05_SUMMARY, evidence: EVIDENCE }),
    ]);
  });

  it("fails when a finish was accepted without being rejected first", () => {
    const gate = {
      ...real.gate,
      stdout: edited(real.gate.stdout, (result) => {
        result.messages = (result.messages as Message[]).filter(
          (m) => m.type !== "finish_rejected",
        );
      }),
    };
    expect(reasonOf({ ...real, gate })).toContain("完成被拒绝的原因应依次为");
  });

  it("fails when the accepted finish rests on tests of another version", () => {
    const gate = {
      ...real.gate,
      stdout: edited(real.gate.stdout, (result) => {
        const evidence = result.evidence as { tests: { version: string } };
        evidence.tests.version = "sha256:0000000000000000";
      }),
    };
    expect(reasonOf({ ...real, gate })).toBe("被接受的完成所依据的测试不是当前版本的");
  });

  it("fails when the interrupted command ran again, or the edit was written twice", () => {
    expect(reasonOf({ ...real, resume: { ...real.resume, commandRuns: 2 } })).toBe(
      "中断的命令应只执行过 1 次，实际 2 次",
    );
    const twice = real.resume.fileAfter.replace("return a + b;", "return a + b;\n  return a + b;");
    expect(reasonOf({ ...real, resume: { ...real.resume, fileAfter: twice } })).toBe(
      "src/sum.js 应恰好被修改一次",
    );
  });

  it("fails when the command in doubt is answered as if it had run", () => {
    const resumed = real.resume.resumed;
    if (resumed === undefined) throw new Error("the real resume printed nothing");
    const rerun = {
      ...resumed,
      stdout: edited(resumed.stdout, (result) => {
        const tool = (result.messages as Message[]).filter((m) => m.role === "tool")[1];
        if (tool !== undefined) {
          tool.ok = true;
          delete tool.error;
        }
      }),
    };
    expect(reasonOf({ ...real, resume: { ...real.resume, resumed: rerun } })).toBe(
      "中断的 run_command 应答 interrupted",
    );
  });

  it("fails when the first run was not killed, or a loop ran to its step budget", () => {
    expect(reasonOf({ ...real, resume: { ...real.resume, killedBy: "exit" } })).toContain(
      "SIGKILL",
    );
    const loop = {
      ...real.loop,
      exitCode: 3,
      stdout: edited(real.loop.stdout, (result) => {
        result.code = "max_steps";
      }),
    };
    expect(reasonOf({ ...real, loop })).toContain("loop_detected");
  });

  it("fails when one request the API received is over the context budget", () => {
    const requestTokens = [...real.context.requestTokens.slice(0, -1), CONTEXT_BUDGET + 1];
    expect(reasonOf({ ...real, context: { ...real.context, requestTokens } })).toBe(
      `有 1 个请求超出上下文预算 ${CONTEXT_BUDGET} token`,
    );
  });
});
