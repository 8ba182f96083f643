import { formatVerdict } from "@bootcamp/checkpoint-shared";
import { beforeAll, describe, expect, it } from "vitest";
import { runWeek08 } from "../src/run-week-08.ts";
import { type CliRun, judgeWeek08, WEEK_08_SUMMARY, type Week08Run } from "../src/week-08.ts";

const EVIDENCE = [
  "hooks:trusted PreToolUse veto hook_denied,file not written; untrusted workspace: warned, hook not run",
  "mcp:mcp__everything__echo answered,ghost mcp_error,run completed",
  "mcp-gate:--approval deny blocked mcp__everything__echo,exit 4; 2 server processes started,0 left",
  "stream:429 waited ≥1000 ms,cut stream retried,4 streamed requests,2 tool calls assembled,completed",
  "subagents:2 children at once in worktrees,results in call order with patches,parent applied one itself,0 worktrees left",
];

let real: Week08Run;
beforeAll(async () => {
  real = await runWeek08();
});

const reasonOf = (run: Week08Run) => {
  const verdict = judgeWeek08(run);
  return verdict.ok ? "" : verdict.reason;
};

type Message = {
  role: string;
  tool?: string;
  ok?: boolean;
  content?: string;
  error?: { code: string };
};
/** `run` with its RunResult edited: `edit` gets the parsed result and may change it. */
const edited = (run: CliRun, edit: (result: { status: string; messages: Message[] }) => void) => {
  const result = JSON.parse(run.stdout);
  edit(result);
  return { ...run, stdout: JSON.stringify(result) };
};
const tools = (result: { messages: Message[] }) => result.messages.filter((m) => m.role === "tool");

describe("judgeWeek08", () => {
  it("passes the real runs and prints exactly the two expected lines", () => {
    const verdict = judgeWeek08(real);
    expect(verdict).toEqual({ week: 8, ok: true, summary: WEEK_08_SUMMARY, evidence: EVIDENCE });
    expect(formatVerdict(verdict)).toEqual([
      `第 8 周检查点通过：${WEEK_08_SUMMARY}`,
      JSON.stringify({ week: 8, ok: true, summary: WEEK_08_SUMMARY, evidence: EVIDENCE }),
    ]);
  });

  it("refuses a veto hook that let the write happen", () => {
    expect(reasonOf({ ...real, hooks: { ...real.hooks, trustedWrote: true } })).toBe(
      "hook 否决了写入，文件却被写了",
    );
    const allowed = edited(real.hooks.trusted, (result) => {
      const [first] = tools(result);
      Object.assign(first ?? {}, { ok: true, error: undefined, content: "{}" });
    });
    expect(reasonOf({ ...real, hooks: { ...real.hooks, trusted: allowed } })).toMatch(
      /应否决 write_file/,
    );
  });

  it("refuses an untrusted workspace whose hook ran", () => {
    const vetoed = { ...real.hooks, untrusted: real.hooks.trusted, untrustedWrote: false };
    expect(reasonOf({ ...real, hooks: vetoed })).toMatch(/不受信任的工作区/);
  });

  it("refuses a dead server whose tool was not answered mcp_error, or a run it stopped", () => {
    const otherCode = edited(real.mcp.auto, (result) => {
      const ghost = tools(result)[1];
      if (ghost?.error !== undefined) ghost.error.code = "tool_error";
    });
    expect(reasonOf({ ...real, mcp: { ...real.mcp, auto: otherCode } })).toMatch(/mcp_error/);
    const stopped = edited(real.mcp.auto, (result) => {
      result.status = "failed";
    });
    expect(reasonOf({ ...real, mcp: { ...real.mcp, auto: stopped } })).toMatch(/运行应照常完成/);
  });

  it("refuses an MCP tool that escaped --approval deny, and a server left running", () => {
    const escaped = { ...real.mcp, denied: real.mcp.auto };
    expect(reasonOf({ ...real, mcp: escaped })).toMatch(/--approval deny 应挡住 MCP 工具/);
    const left = { ...real.mcp, alive: [real.mcp.serverPids[0] ?? 1] };
    expect(reasonOf({ ...real, mcp: left })).toMatch(/仍有 MCP 服务器进程/);
  });

  it("refuses a streamed run that used the cut reply, skipped the wait, or printed the key", () => {
    const { stream } = real;
    const cut = edited(stream.run, (result) => {
      result.messages.push({ role: "assistant", content: "被截断的半截回复" });
    });
    expect(reasonOf({ ...real, stream: { ...stream, run: cut } })).toMatch(/半截回复不应被使用/);
    const hurried = stream.trace.replace(/"delayMs":\d+/, '"delayMs":5');
    expect(hurried).not.toBe(stream.trace);
    expect(reasonOf({ ...real, stream: { ...stream, trace: hurried } })).toMatch(/至少等 1000 ms/);
    const leaked = { ...stream.run, stderr: `${stream.run.stderr}${stream.key}` };
    expect(reasonOf({ ...real, stream: { ...stream, run: leaked } })).toMatch(/API key/);
  });

  it("refuses a streamed run whose trace has a torn line", () => {
    const { stream } = real;
    const [first = "", second = "", ...rest] = stream.trace.split("\n");
    const trace = [first, second.slice(0, 20), ...rest].join("\n");
    expect(reasonOf({ ...real, stream: { ...stream, trace } })).toBe(
      "trace.jsonl 第 2 行不是 trace 事件",
    );
  });

  it("refuses subagent results out of call order, a child that wrote the parent's repository, a worktree left", () => {
    const { subagents } = real;
    const swapped = edited(subagents.run, (result) => {
      const spawned = tools(result).filter((m) => m.tool === "spawn_agent");
      const [first, second] = spawned.map((m) => m.content);
      Object.assign(spawned[0] ?? {}, { content: second });
      Object.assign(spawned[1] ?? {}, { content: first });
    });
    expect(reasonOf({ ...real, subagents: { ...subagents, run: swapped } })).toMatch(/按调用顺序/);
    const wrote = { ...subagents, status: " M src/a.txt\n?? src/b.txt\n" };
    expect(reasonOf({ ...real, subagents: wrote })).toMatch(/子 Agent 只能改自己的副本/);
    expect(reasonOf({ ...real, subagents: { ...subagents, worktrees: 2 } })).toMatch(/worktree/);
    const copies = { ...subagents, copiesLeft: ["coding-agent-subagent-x"] };
    expect(reasonOf({ ...real, subagents: copies })).toMatch(/工作区副本/);
  });
});
