import { failed, passed, type Verdict } from "@bootcamp/checkpoint-shared";
import type { Message, RunResult, ToolFailureMessage } from "@coding-agent/agent-core";

/** What the week-2 checkpoint must prove, in its own words. */
export const WEEK_02_SUMMARY =
  "工具输入经 schema 校验，模型收到 invalid_input 后改正并完成（Fake Model 与 OpenAI 兼容接口）";

/** One scenario's run: its result, what the model was sent at each call, what a server rejected. */
export interface ScenarioRun {
  readonly name: string;
  readonly result: RunResult;
  /** What each model call was sent, as JSON text, in order. */
  readonly sent: readonly string[];
  /** Error bodies of requests the loopback server rejected (none from a correct adapter). */
  readonly rejected: readonly string[];
}

/** The two runs the checkpoint judges. */
export interface Week02Runs {
  readonly fake: ScenarioRun;
  readonly openai: ScenarioRun;
}

/**
 * Judges both runs. Each must: complete; hold an `invalid_input` result for `echo`
 * that no execution produced; show that result to the model in a later call; then
 * hold a successful `echo` result (the model corrected itself). The adapter's run
 * must also have had no request rejected by the server. The evidence is read from
 * the runs' own messages (`scenario:invalid_input(paths)`, `scenario:echo:value`).
 */
export function judgeWeek02(runs: Week02Runs): Verdict<2> {
  const scenarios = [runs.fake, runs.openai];
  const evidence = scenarios.flatMap(evidenceOf);
  for (const run of scenarios) {
    const reason = problemOf(run);
    if (reason !== undefined) return failed(2, WEEK_02_SUMMARY, evidence, `${run.name}：${reason}`);
  }
  return passed(2, WEEK_02_SUMMARY, evidence);
}

/** Why a scenario does not prove the contract, or undefined when it does. */
function problemOf(run: ScenarioRun): string | undefined {
  const { result } = run;
  if (result.status !== "completed") {
    return `运行没有完成：状态 ${result.status}（${result.reason}）`;
  }
  const messages = [...result.messages];
  const invalidAt = messages.findIndex(isInvalidEcho);
  const invalid = messages[invalidAt] as ToolFailureMessage | undefined;
  if (invalid === undefined) return "历史中没有 echo 的 invalid_input 结果";
  const correctedAt = messages.findIndex(
    (message, index) => index > invalidAt && isEchoSuccess(message),
  );
  if (correctedAt === -1) return "invalid_input 之后没有成功的 echo：模型没有改正输入";
  const successes = messages.filter(isEchoSuccess).length;
  if (result.toolCalls !== successes) {
    return `执行了 ${result.toolCalls} 次工具，成功结果却有 ${successes} 个：无效输入到达了 execute`;
  }
  const shown = run.sent.some(
    (text) => text.includes(invalid.callId) && text.includes("invalid_input"),
  );
  if (!shown) return "invalid_input 结果没有出现在之后发给模型的内容里";
  if (run.rejected.length > 0) {
    return `服务器拒绝了 ${run.rejected.length} 个请求：${run.rejected[0] ?? ""}`;
  }
  return undefined;
}

function isInvalidEcho(message: Message): boolean {
  return (
    message.role === "tool" &&
    message.tool === "echo" &&
    !message.ok &&
    message.error.code === "invalid_input"
  );
}

function isEchoSuccess(message: Message): boolean {
  return message.role === "tool" && message.tool === "echo" && message.ok;
}

function evidenceOf(run: ScenarioRun): string[] {
  return run.result.messages.flatMap((message) => {
    if (message.role !== "tool" || message.tool !== "echo") return [];
    if (message.ok) return [`${run.name}:echo:${message.content}`];
    const paths = (message.error.issues ?? []).map((issue) => issue.path).join(",");
    return [`${run.name}:${message.error.code}(${paths})`];
  });
}
