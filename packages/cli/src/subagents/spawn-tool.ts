import type { RunStatus, Tool, ToolInput } from "@coding-agent/agent-core";
import { allowPathProblem, type PathAllowance } from "@coding-agent/tools";
import { z } from "zod";
import type { ChildOutcome, ChildSpec } from "./child-runner.ts";

/** The tool's name, as docs/contracts.md §7 spells it. */
export const SPAWN_AGENT = "spawn_agent";

/** What the parent's model gets for one `spawn_agent` call. */
export interface SpawnResult {
  readonly status: RunStatus;
  readonly code: string;
  readonly summary: string;
  /** Unified diff of the child's changes against its starting point ("" for none). */
  readonly patch: string;
  /** Files in the patch, relative to the workspace. */
  readonly files: readonly string[];
  /** Files the child changed outside its allowPaths (or the parent's): not in the patch. */
  readonly excluded?: readonly string[];
}

/**
 * The `spawn_agent` tool as the model sees it (its description and input schema) with
 * `execute`; a replay gives it a stand-in that never runs. Concurrent: a child works in its own
 * copy and changes nothing the parent sees until the parent applies its patch, so the loop
 * starts a reply's `spawn_agent` calls together (the real tool caps how many run at once).
 */
export function spawnAgentTool(parentAllows: PathAllowance, execute: Tool["execute"]): Tool {
  return {
    description:
      "启动一个子 Agent：它在工作区的隔离副本里完成 goal（allowPaths 限定它能改的路径，只能比本次运行的更窄），返回 { status, summary, patch }；patch 是它的改动（统一 diff），要用你自己的编辑工具应用。同一回复里的多个 spawn_agent 同时运行。",
    inputSchema: spawnInputSchema(parentAllows),
    execute,
    concurrent: true,
  };
}

/** `{ goal, allowPaths? }`: each glob a valid `--allow-path`, inside the parent's. */
export function spawnInputSchema(parentAllows: PathAllowance) {
  return z.strictObject({
    goal: z.string().trim().min(1, "goal 不能为空"),
    allowPaths: z
      .array(
        z.string().check((ctx) => {
          const problem = allowPathProblem(ctx.value)?.replace("--allow-path", "allowPaths");
          if (problem !== undefined) {
            ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
          } else if (!parentAllows(ctx.value.replace(/\/+$/, ""))) {
            ctx.issues.push({
              code: "custom",
              message: `allowPaths 只能比本次运行的 --allow-path 更窄：${ctx.value}`,
              input: ctx.value,
            });
          }
        }),
      )
      .optional(),
  });
}

/** The child a call asks for, from its validated input. */
export function specOf(input: ToolInput): ChildSpec {
  const goal = String(input.goal ?? "").trim();
  const allowPaths = Array.isArray(input.allowPaths) ? input.allowPaths.map(String) : [];
  return { goal, allowPaths };
}

/** What the parent's model gets back from a child that ran. */
export function resultOf(outcome: ChildOutcome): SpawnResult {
  return {
    status: outcome.status,
    code: outcome.code,
    summary: outcome.summary,
    patch: outcome.patch,
    files: outcome.files,
    ...(outcome.excluded.length === 0 ? {} : { excluded: outcome.excluded }),
  };
}

/** A call whose child cannot start: the parent's budget has no share left for it. */
export function refused(code: string, summary: string): SpawnResult {
  return { status: "budget_exceeded", code, summary, patch: "", files: [] };
}

/** The result of a child that failed or never ran: cancelled when it was cancelled. */
export function notRun(cancelled: boolean, error: unknown): SpawnResult {
  return {
    status: cancelled ? "cancelled" : "failed",
    code: cancelled ? "cancelled" : "subagent_error",
    summary: cancelled ? "子 Agent 已取消" : `子 Agent 运行出错：${messageOf(error)}`,
    patch: "",
    files: [],
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
