import {
  cliJson,
  jsonOrUndefined,
  judgeByRefusal,
  refuse,
  type Verdict,
} from "@bootcamp/checkpoint-shared";
import type { CapturedCliRun } from "@coding-agent/cli";
import { z } from "zod";

/** What the week-8 checkpoint must prove, in its own words. */
export const WEEK_08_SUMMARY =
  "扩展都走同一道门：受信任工作区的 hook 否决写文件（hook_denied，文件没写），不受信任的工作区的 hook 不运行；真实 MCP 服务器的工具能调用，起不来的服务器答 mcp_error、运行照常，--approval deny 挡住 MCP 工具，运行结束没有服务器进程残留；流式回复遇到 429 按 Retry-After 等待、被截断的流重试，拼出的工具调用和完整回复一样；两个子 Agent 同时在各自的 worktree 里工作，结果按调用顺序带着补丁回来，父 Agent 只用自己的编辑工具应用补丁，运行结束不留 worktree";

/** One `coding-agent` invocation: its exit code and what it printed. */
export type CliRun = CapturedCliRun;

/** The streamed run and what the loopback API saw. */
export interface StreamRun {
  readonly run: CliRun;
  /** The API key the run used: it must never be printed. */
  readonly key: string;
  readonly requests: number;
  readonly streamedRequests: number;
  /** The run's trace.jsonl. */
  readonly trace: string;
}

/** The subagents run and what it left in the repository. */
export interface SubagentsRun {
  readonly run: CliRun;
  /** `git status --porcelain` after the run. */
  readonly status: string;
  /** Worktrees `git worktree list` names after the run (1: the repository's own). */
  readonly worktrees: number;
  /** Copies of the workspace left in the system temp folder. */
  readonly copiesLeft: readonly string[];
}

/** The checkpoint's runs. */
export interface Week08Run {
  readonly hooks: {
    /** A PreToolUse hook vetoing write_file, the workspace trusted (`--trust-workspace`). */
    readonly trusted: CliRun;
    readonly trustedWrote: boolean;
    /** The same settings in a workspace nobody trusted. */
    readonly untrusted: CliRun;
    readonly untrustedWrote: boolean;
  };
  readonly mcp: {
    /** server-everything's echo, then a tool of a server that never started; `--approval auto`. */
    readonly auto: CliRun;
    /** server-everything's echo under `--approval deny`, no `--allow-tool`. */
    readonly denied: CliRun;
    /** Every server-everything process the two runs started, and those still running. */
    readonly serverPids: readonly number[];
    readonly alive: readonly number[];
  };
  readonly stream: StreamRun;
  readonly subagents: SubagentsRun;
}

/** The parts of a `--json` RunResult the verdict reads (docs/contracts.md §6). */
const ResultSchema = z.looseObject({
  status: z.string(),
  code: z.string(),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      ok: z.boolean().optional(),
      content: z.string().optional(),
      tool: z.string().optional(),
      error: z.looseObject({ code: z.string(), message: z.string().optional() }).optional(),
    }),
  ),
});
type Result = z.infer<typeof ResultSchema>;

const resultOf = (name: string, run: CliRun): Result => cliJson(name, run, ResultSchema);

const toolMessages = (result: Result) => result.messages.filter((m) => m.role === "tool");

/** Judges the runs: the two lines it prints, and exit 1 unless all holds. */
export function judgeWeek08(run: Week08Run): Verdict<8> {
  return judgeByRefusal(8, WEEK_08_SUMMARY, () => [
    judgeHooks(run),
    ...judgeMcp(run),
    judgeStream(run.stream),
    judgeSubagents(run.subagents),
  ]);
}

function judgeHooks({ hooks }: Week08Run): string {
  const trusted = resultOf("受信任工作区", hooks.trusted);
  const [vetoed] = toolMessages(trusted);
  if (vetoed?.ok !== false || vetoed.error?.code !== "hook_denied") {
    refuse("受信任工作区的 PreToolUse hook 应否决 write_file（hook_denied）");
  }
  if (hooks.trustedWrote) refuse("hook 否决了写入，文件却被写了");
  if (!vetoed.error.message?.includes("检查点：不许写文件")) {
    refuse("否决的理由（hook 的 stderr）没有交给模型");
  }
  const untrusted = resultOf("不受信任的工作区", hooks.untrusted);
  if (!hooks.untrusted.stderr.includes("未被信任")) refuse("不受信任的工作区应有一行警告");
  const [written] = toolMessages(untrusted);
  if (written?.ok !== true || !hooks.untrustedWrote) {
    refuse("不受信任的工作区的 hook 不应运行：write_file 应照常写入");
  }
  return "hooks:trusted PreToolUse veto hook_denied,file not written; untrusted workspace: warned, hook not run";
}

function judgeMcp({ mcp }: Week08Run): string[] {
  const auto = resultOf("MCP（approval auto）", mcp.auto);
  const [echo, ghost] = toolMessages(auto);
  if (echo?.ok !== true || !echo.content?.includes("你好 MCP")) {
    refuse("mcp__everything__echo 应回显消息");
  }
  if (ghost?.ok !== false || ghost.error?.code !== "mcp_error") {
    refuse("起不来的服务器 ghost 的工具应答 mcp_error");
  }
  if (auto.status !== "completed" || mcp.auto.exitCode !== 0) {
    refuse(`一个服务器起不来，运行应照常完成，实际 ${auto.status}（退出码 ${mcp.auto.exitCode}）`);
  }
  const failures = mcp.auto.stderr.split("\n").filter((line) => line.includes("ghost"));
  if (failures.length !== 1)
    refuse(`ghost 启动失败应在 stderr 上恰好一行，实际 ${failures.length}`);
  const denied = resultOf("MCP（approval deny）", mcp.denied);
  if (denied.status !== "blocked" || mcp.denied.exitCode !== 4) {
    refuse(
      `--approval deny 应挡住 MCP 工具（blocked，退出码 4），实际 ${denied.status}（退出码 ${mcp.denied.exitCode}）`,
    );
  }
  if (mcp.serverPids.length !== 2)
    refuse(`应启动 2 次 everything 服务器，实际 ${mcp.serverPids.length}`);
  if (mcp.alive.length > 0) refuse(`运行结束后仍有 MCP 服务器进程：${mcp.alive.join("、")}`);
  return [
    "mcp:mcp__everything__echo answered,ghost mcp_error,run completed",
    `mcp-gate:--approval deny blocked mcp__everything__echo,exit 4; ${mcp.serverPids.length} server processes started,0 left`,
  ];
}

const TraceLine = z.looseObject({ type: z.string(), delayMs: z.number().optional() });

function judgeStream(stream: StreamRun): string {
  const result = resultOf("流式运行", stream.run);
  if (result.status !== "completed" || stream.run.exitCode !== 0) {
    refuse(`流式运行应完成，实际 ${result.status}（退出码 ${stream.run.exitCode}）`);
  }
  const tools = toolMessages(result);
  if (tools.length !== 2 || !tools[0]?.content?.includes("第二行") || tools[1]?.ok !== true) {
    refuse("流里拼出的两个工具调用（read_file、echo）应各执行一次");
  }
  if (result.messages.some((m) => m.content?.includes("被截断的半截回复"))) {
    refuse("被截断的流里的半截回复不应被使用");
  }
  const events = stream.trace
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line, index) => {
      const parsed = TraceLine.safeParse(jsonOrUndefined(line));
      return parsed.success ? parsed.data : refuse(`trace.jsonl 第 ${index + 1} 行不是 trace 事件`);
    });
  const retries = events.filter((event) => event.type === "model_retry");
  if (retries.length !== 2) refuse(`应重试 2 次（429、截断），实际 ${retries.length}`);
  if ((retries[0]?.delayMs ?? 0) < 1_000) refuse("429 的 Retry-After: 1 应至少等 1000 ms");
  if (stream.requests !== 4 || stream.streamedRequests !== 4) {
    refuse(`应发出 4 个流式请求，实际 ${stream.streamedRequests}/${stream.requests}`);
  }
  for (const text of [stream.run.stdout, stream.run.stderr, stream.trace]) {
    if (text.includes(stream.key)) refuse("API key 出现在了输出或 trace 里");
  }
  return `stream:429 waited ≥1000 ms,cut stream retried,${stream.requests} streamed requests,2 tool calls assembled,completed`;
}

const SpawnValue = z.looseObject({
  status: z.string(),
  summary: z.string(),
  patch: z.string(),
  files: z.array(z.string()),
});

function judgeSubagents(subagents: SubagentsRun): string {
  const result = resultOf("子 Agent 运行", subagents.run);
  if (result.status !== "completed") refuse(`子 Agent 运行应完成，实际 ${result.status}`);
  const spawned = result.messages.filter((m) => m.role === "tool" && m.tool === "spawn_agent");
  if (spawned.length !== 2 || spawned.some((m) => m.ok !== true)) {
    refuse("两个 spawn_agent 调用都应有结果");
  }
  const [a, b] = spawned.map((m) => {
    try {
      return SpawnValue.parse(JSON.parse(m.content ?? ""));
    } catch {
      return refuse("spawn_agent 的结果应是 { status, summary, patch, files }");
    }
  });
  if (a?.summary !== "a 改好了" || b?.summary !== "b 加好了") {
    const got = [a, b].map((value) => `${value?.status}：${value?.summary}`).join("；");
    refuse(`子 Agent 的结果应按调用顺序返回（改 a，然后加 b），实际 ${got}`);
  }
  if (!a.patch.includes("-a 未提交\n+A 子 Agent 改的")) {
    refuse("改 a 的补丁应从父工作区未提交的状态改起");
  }
  if (!b.patch.includes("+++ b/src/b.txt")) refuse("加 b 的补丁应新建 src/b.txt");
  // The parent applied a's change itself; b's patch was never applied, so b.txt is not there.
  if (subagents.status !== " M src/a.txt\n") {
    refuse(
      `子 Agent 只能改自己的副本：仓库的状态应只有 src/a.txt 被父 Agent 改过，实际 ${JSON.stringify(subagents.status)}`,
    );
  }
  if (subagents.worktrees !== 1)
    refuse(`运行结束后仍有 ${subagents.worktrees - 1} 个子 Agent 的 worktree`);
  if (subagents.copiesLeft.length > 0)
    refuse(`运行结束后仍有工作区副本：${subagents.copiesLeft.join("、")}`);
  return "subagents:2 children at once in worktrees,results in call order with patches,parent applied one itself,0 worktrees left";
}
