import { failed, passed, type Verdict } from "@bootcamp/checkpoint-shared";
import type { ModelRequest, RunResult } from "@coding-agent/agent-core";

/** What the week-1 checkpoint must prove, in its own words. */
export const WEEK_01_SUMMARY = "最小 Agent 完成 echo 后结束";

/** What a week-1 run left behind: its result and the requests the fake model received. */
export interface Week01Run {
  readonly result: RunResult;
  readonly requests: readonly ModelRequest[];
}

/**
 * Judges a week-1 run: it must complete, an `echo` tool result must be in its
 * history, and the model must have been asked again with that result in view
 * (the loop closed). The evidence is read from the run's own messages
 * (`tool:content` of each successful echo), never written by hand.
 */
export function judgeWeek01(run: Week01Run): Verdict<1> {
  const echoes = run.result.messages.flatMap((message) =>
    message.role === "tool" && message.tool === "echo" && message.ok ? [message] : [],
  );
  const evidence = echoes.map((message) => `${message.tool}:${message.content}`);
  const fail = (reason: string) => failed(1, WEEK_01_SUMMARY, evidence, reason);

  if (run.result.status !== "completed") {
    return fail(`运行没有完成：状态 ${run.result.status}（${run.result.reason}）`);
  }
  const echo = echoes[0];
  if (echo === undefined) return fail("历史中没有 echo 工具的成功结果");
  if (echo.content !== "hello")
    return fail(`echo 的观察是 ${JSON.stringify(echo.content)}，应为 "hello"`);
  const sawObservation = run.requests.some((request) =>
    request.messages.some((message) => message.role === "tool" && message.callId === echo.callId),
  );
  if (!sawObservation) return fail("echo 的结果没有出现在之后的模型请求里：观察没有回写");
  if (run.result.summary !== WEEK_01_SUMMARY) {
    return fail(
      `完成摘要是 ${JSON.stringify(run.result.summary)}，应为 ${JSON.stringify(WEEK_01_SUMMARY)}`,
    );
  }
  return passed(1, run.result.summary, evidence);
}
