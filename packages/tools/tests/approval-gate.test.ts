import {
  blockRun,
  defineTool,
  isBlockedOutcome,
  runAgent,
  type TraceEvent,
} from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type ApprovalOptions,
  createApprovalGate,
  type DecideApproval,
  decideApproval,
  type GatedCall,
} from "../src/approval-gate.ts";
import type { Approver } from "../src/approvals.ts";

/** A call to `program` that needs permission; `detail` stands for what it would do. */
function gated(program: string, detail = "x"): GatedCall {
  return {
    request: { tool: "demo", argv: [program, detail], program, reason: `${program} 需要批准` },
    undone: `[${program} ${detail}] 没有执行`,
  };
}

function gate(options: ApprovalOptions, auto: "allow" | "not_allowed" = "not_allowed") {
  return createApprovalGate({ ...options, auto });
}

const reasonOf = (outcome: unknown) => (outcome as { reason: string }).reason;

describe("decideApproval (the default verdict)", () => {
  it("turns a refusal into blockRun naming why permission was needed, why it was not given and the call", () => {
    const verdict = decideApproval({ allowed: false, reason: "用户拒绝" }, gated("/bin/rm"));
    expect(isBlockedOutcome(verdict)).toBe(true);
    expect(reasonOf(verdict)).toBe("/bin/rm 需要批准；用户拒绝：[/bin/rm x] 没有执行");
  });

  it("keeps an allowance for the scope it was given", () => {
    expect(decideApproval({ allowed: true, forRun: true }, gated("/bin/rm"))).toBe("allow_run");
    expect(decideApproval({ allowed: true, forRun: false }, gated("/bin/rm"))).toBe("allow_once");
  });
});

describe("the approval gate, mode by mode", () => {
  it.each(["ask", "deny", "auto"] as const)(
    "%s: a call that needs no permission passes without asking",
    async (approval) => {
      const approver = vi.fn<Approver>(async () => "deny");
      const checks = gate({ approval, approver });
      const input = {};
      expect(await checks.authorize(input, undefined)).toBeUndefined();
      expect(await checks.admit(input, undefined)).toBeUndefined();
      expect(approver).not.toHaveBeenCalled();
    },
  );

  it("deny: blocks before and inside execute without asking, naming the call", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const checks = gate({ approval: "deny", approver });
    const call = gated("/bin/rm");
    const before = await checks.authorize({}, call);
    const inside = await checks.admit({}, call);
    expect(reasonOf(before)).toBe("/bin/rm 需要批准；--approval deny：[/bin/rm x] 没有执行");
    expect(isBlockedOutcome(inside)).toBe(true);
    expect(approver).not.toHaveBeenCalled();
  });

  it("auto for a tool that refuses: not asked, not blocked, the call answers not_allowed", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const checks = gate({ approval: "auto", approver }, "not_allowed");
    const input = {};
    expect(await checks.authorize(input, gated("/bin/rm"))).toBeUndefined();
    expect(await checks.admit(input, gated("/bin/rm"))).toEqual({
      ok: false,
      error: { code: "not_allowed", message: "/bin/rm 需要批准" },
    });
    expect(approver).not.toHaveBeenCalled();
  });

  it("auto for a tool that allows: not asked, the call acts, nothing is remembered", async () => {
    const approver = vi.fn<Approver>(async () => "deny");
    const checks = gate({ approval: "auto", approver }, "allow");
    expect(await checks.admit({}, gated("/srv/ws"))).toBeUndefined();
    expect(await checks.admit({}, gated("/srv/ws"))).toBeUndefined();
    expect(approver).not.toHaveBeenCalled();
  });

  it.each<[string, Approver]>([
    ["the user denies", async () => "deny"],
    ["no answer comes in time", () => new Promise(() => {})],
    [
      "the approver throws",
      async () => {
        throw new Error("终端已关闭");
      },
    ],
    ["the answer is one it does not know", (async () => "yes") as unknown as Approver],
  ])("ask: blocks when %s, before and inside execute", async (_case, approver) => {
    const checks = gate({ approval: "ask", approver, approvalTimeoutMs: 50 });
    expect(isBlockedOutcome(await checks.authorize({}, gated("/bin/rm")))).toBe(true);
    expect(isBlockedOutcome(await checks.admit({}, gated("/bin/rm")))).toBe(true);
  });

  it("execute called directly (admit without authorize first) is asked the same, and asked once", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const checks = gate({ approval: "ask", approver });
    expect(await checks.admit({}, gated("/bin/rm"))).toBeUndefined();
    expect(approver).toHaveBeenCalledTimes(1);
    const denied = gate({ approval: "ask", approver: async () => "deny" });
    expect(reasonOf(await denied.admit({}, gated("/bin/rm")))).toBe(
      "/bin/rm 需要批准；用户拒绝：[/bin/rm x] 没有执行",
    );
  });

  it("ask without an approver refuses, as ask without a terminal does", async () => {
    const blocked = await gate({ approval: "ask" }).authorize({}, gated("/bin/rm"));
    expect(reasonOf(blocked)).toContain("用户拒绝");
  });

  it("ask shows the approver the call's request and passes on the run's cancel signal", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const call = gated("/bin/rm");
    const cancel = new AbortController();
    await gate({ approval: "ask", approver }).authorize({}, call, cancel.signal);
    expect(approver).toHaveBeenCalledWith(call.request, expect.any(AbortSignal));
    const asked = approver.mock.calls[0]?.[1];
    cancel.abort();
    expect(asked?.aborted).toBe(true);
  });
});

describe("what the gate remembers", () => {
  it("allow once: this input acts once; the next call, even with equal input, is asked again", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const checks = gate({ approval: "ask", approver });
    const input = { argv: ["rm", "x"] };
    expect(await checks.authorize(input, gated("/bin/rm"))).toBeUndefined();
    expect(await checks.admit(input, gated("/bin/rm"))).toBeUndefined();
    expect(approver).toHaveBeenCalledTimes(1);
    // Used up: the same object, and an equal one, are asked about again.
    await checks.admit(input, gated("/bin/rm"));
    await checks.admit({ argv: ["rm", "x"] }, gated("/bin/rm"));
    expect(approver).toHaveBeenCalledTimes(3);
  });

  it("allow once holds only while the call would do what was shown: a changed request is asked again", async () => {
    const approver = vi
      .fn<Approver>()
      .mockResolvedValueOnce("allow_once")
      .mockResolvedValue("deny");
    const checks = gate({ approval: "ask", approver });
    const input = {};
    expect(await checks.authorize(input, gated("/bin/rm", "shown"))).toBeUndefined();
    const changed = await checks.admit(input, gated("/bin/rm", "changed since"));
    expect(isBlockedOutcome(changed)).toBe(true);
    expect(approver).toHaveBeenCalledTimes(2);
    expect(approver.mock.calls[1]?.[0].argv).toEqual(["/bin/rm", "changed since"]);
  });

  it("allow for the run: later calls of that program act without asking; another program is asked", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const checks = gate({ approval: "ask", approver });
    expect(await checks.admit({}, gated("/bin/touch", "a"))).toBeUndefined();
    expect(await checks.authorize({}, gated("/bin/touch", "b"))).toBeUndefined();
    expect(await checks.admit({}, gated("/bin/touch", "c"))).toBeUndefined();
    expect(approver).toHaveBeenCalledTimes(1);
    expect(await checks.admit({}, gated("/bin/rm"))).toBeUndefined();
    expect(approver).toHaveBeenCalledTimes(2);
    expect(approver.mock.calls[1]?.[0].program).toBe("/bin/rm");
  });

  it("each gate remembers its own answers: allow for the run in one run does not reach another", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    await gate({ approval: "ask", approver }).admit({}, gated("/bin/touch"));
    await gate({ approval: "ask", approver }).admit({}, gated("/bin/touch"));
    expect(approver).toHaveBeenCalledTimes(2);
  });
});

describe("the decideApproval hook", () => {
  it("gets the outcome and the call, and what it returns is what the gate does", async () => {
    const decide = vi.fn<DecideApproval>(() => blockRun("自定义的拒绝"));
    const checks = gate({
      approval: "ask",
      approver: async () => "allow_run",
      decideApproval: decide,
    });
    const call = gated("/bin/touch");
    expect(reasonOf(await checks.authorize({}, call))).toBe("自定义的拒绝");
    expect(decide).toHaveBeenCalledWith({ allowed: true, forRun: true }, call);
  });

  it("a verdict that is neither a refusal nor an allowance never lets the call act", async () => {
    const broken = (() => undefined) as unknown as DecideApproval;
    const checks = gate({
      approval: "ask",
      approver: async () => "allow_run",
      decideApproval: broken,
    });
    const input = {};
    expect(await checks.authorize(input, gated("/bin/rm"))).toBeUndefined();
    expect(await checks.admit(input, gated("/bin/rm"))).toMatchObject({
      ok: false,
      error: { code: "not_allowed" },
    });
  });

  it("is asked only under ask", async () => {
    const decide = vi.fn<DecideApproval>(decideApproval);
    await gate({ approval: "deny", decideApproval: decide }).admit({}, gated("/bin/rm"));
    await gate({ approval: "auto", decideApproval: decide }).admit({}, gated("/bin/rm"));
    expect(decide).not.toHaveBeenCalled();
  });
});

describe("a gated tool inside runAgent", () => {
  /** A tool whose every call needs permission; `acted` counts the calls that got past the gate. */
  function gatedTool(options: ApprovalOptions) {
    const checks = gate(options);
    const acted = { count: 0 };
    const call = gated("/bin/touch");
    const tool = defineTool({
      inputSchema: z.object({ file: z.string() }),
      authorize: (input, signal) => checks.authorize(input, call, signal),
      execute: async (input, signal) => {
        const refused = await checks.admit(input, call, signal);
        if (refused !== undefined) return refused;
        acted.count++;
        return { made: input.file };
      },
    });
    return { tool, acted };
  }

  async function runOnce(options: ApprovalOptions) {
    const { tool, acted } = gatedTool({ approvalTimeoutMs: 50, ...options });
    const events: TraceEvent[] = [];
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "touch", input: { file: "a" } } },
      { action: { type: "tool_call", tool: "touch", input: { file: "b" } } },
      { action: { type: "finish", summary: "完成" } },
    ]);
    const result = await runAgent("建文件", provider, { touch: tool }, { maxSteps: 5 }, undefined, {
      trace: (event) => void events.push(event),
    });
    const started = events.filter((event) => event.type === "tool_started");
    return { result, started, acted: acted.count };
  }

  it.each<[string, ApprovalOptions]>([
    ["deny", { approval: "deny" }],
    ["ask, answered deny", { approval: "ask", approver: async () => "deny" }],
    ["ask, never answered", { approval: "ask", approver: () => new Promise(() => {}) }],
    [
      "ask, a verdict that allows nothing",
      {
        approval: "ask",
        approver: async () => "allow_run",
        decideApproval: () => blockRun("不允许"),
      },
    ],
  ])(
    "refused under %s: never acts, never counted, never traced as started",
    async (_case, options) => {
      const { result, started, acted } = await runOnce(options);
      expect(result).toMatchObject({ status: "blocked", code: "permission_denied", toolCalls: 0 });
      expect(started).toEqual([]);
      expect(acted).toBe(0);
    },
  );

  it("allow once is asked per call; each allowed call acts, is counted and traced once", async () => {
    const approver = vi.fn<Approver>(async () => "allow_once");
    const { result, started, acted } = await runOnce({ approval: "ask", approver });
    expect(result).toMatchObject({ status: "completed", toolCalls: 2 });
    expect([started.length, acted]).toEqual([2, 2]);
    expect(approver).toHaveBeenCalledTimes(2);
  });

  it("allow for the run is asked once for both calls", async () => {
    const approver = vi.fn<Approver>(async () => "allow_run");
    const { result, acted } = await runOnce({ approval: "ask", approver });
    expect(result).toMatchObject({ status: "completed", toolCalls: 2 });
    expect(acted).toBe(2);
    expect(approver).toHaveBeenCalledTimes(1);
  });

  it("auto: the not_allowed answers are observations, the run goes on, nothing acts", async () => {
    const { result, started, acted } = await runOnce({ approval: "auto" });
    expect(result).toMatchObject({ status: "completed", toolCalls: 2 });
    expect(started).toHaveLength(2);
    expect(acted).toBe(0);
    const answers = result.messages.filter((message) => message.role === "tool");
    expect(answers).toMatchObject([
      { ok: false, error: { code: "not_allowed" } },
      { ok: false, error: { code: "not_allowed" } },
    ]);
  });
});
