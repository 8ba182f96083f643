import { readFile } from "node:fs/promises";
import { formatValueIssues, type Provider, toValueIssues } from "@coding-agent/agent-core";
import {
  createScriptedProvider,
  type ScriptedTurn,
  ScriptSchema,
} from "@coding-agent/agent-core/testing";
import { z } from "zod";

/** The outcome of loading a script: its turns, or a message naming the file and the field. */
export type ScriptLoadResult =
  | { readonly ok: true; readonly turns: readonly ScriptedTurn[] }
  | { readonly ok: false; readonly message: string };

/** The script used without `--script`: echo the goal, read the observation, finish. */
export function defaultScript(goal: string): ScriptedTurn[] {
  return [
    { action: { type: "tool_call", tool: "echo", input: { text: goal } } },
    { action: { type: "finish", summary: `已完成：${goal}` } },
  ];
}

/**
 * Reads and validates a `--script` file: a JSON array of turns, each
 * `{ "action": {...}, "usage"?: {...}, "delayMs"?: n }` or `{ "error": "...", "delayMs"?: n }`,
 * each with an optional `"agent": "<goal>"` (a subagent's turn, see `routeScript`).
 */
export async function loadScriptFile(path: string): Promise<ScriptLoadResult> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    return { ok: false, message: `无法读取脚本文件 ${path}：${code || String(error)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      message: `脚本文件 ${path} 不是合法 JSON：${error instanceof Error ? error.message : String(error)}`,
    };
  }
  // zod's own messages in Chinese for this parse only (not `z.config`, which is global).
  const parsed = ScriptSchema.safeParse(json, { error: z.locales.zhCN().localeError });
  if (!parsed.success) {
    const issues = formatValueIssues(toValueIssues(parsed.error.issues, "(根)"), "；");
    return { ok: false, message: `脚本文件 ${path} 无效：${issues}` };
  }
  return { ok: true, turns: parsed.data };
}

/**
 * Splits a script between the parent and its subagents (lesson 39): untagged turns are
 * the parent's; the turns tagged `"agent": "<goal>"` are, in order, the replies of the
 * children with that goal (children with the same goal take them from one queue). A
 * child whose goal has no turns gets an empty script: its first call fails.
 */
export function routeScript(turns: readonly ScriptedTurn[]): {
  readonly parent: readonly ScriptedTurn[];
  readonly child: (goal: string) => Provider;
} {
  const parent = turns.filter((turn) => turn.agent === undefined);
  const queues = new Map<string, Provider>();
  return {
    parent,
    child(goal) {
      let provider = queues.get(goal);
      if (provider === undefined) {
        provider = createScriptedProvider(turns.filter((turn) => turn.agent === goal));
        queues.set(goal, provider);
      }
      return provider;
    },
  };
}
