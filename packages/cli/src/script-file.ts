import { readFile } from "node:fs/promises";
import {
  formatValueIssues,
  type Message,
  type Provider,
  ScriptExhaustedError,
  toValueIssues,
} from "@coding-agent/agent-core";
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
 * True when `--finish-gate auto` does not judge the built-in demo (the fake model without
 * `--script`) on tests: its script never runs them, and the only test command is the
 * workspace's `package.json` script (the repository root has one: the whole `pnpm test`).
 * A test command the user named (`--test-command`) or `--finish-gate tests` keeps the gate.
 */
export function demoSkipsFinishGate(command: {
  readonly provider: { readonly name: string };
  readonly scriptPath?: string;
  readonly testCommand?: string;
  readonly finishGate: string;
}): boolean {
  return (
    command.finishGate === "auto" &&
    command.provider.name === "fake" &&
    command.scriptPath === undefined &&
    command.testCommand === undefined
  );
}

/** The stderr line saying why the built-in demo's finish is not judged on tests. */
export const BUILT_IN_DEMO_GATE_NOTE =
  "coding-agent：内置演示脚本不运行测试，完成验证门 auto 不拿 package.json 的 test 脚本检查它（想看完成验证门拒绝没有证据的完成：加 --finish-gate tests，或用 --script 写自己的脚本）";

/** The reason codes of the finish gate (lesson 21); any other reason is a hook's (`hook_denied`). */
const GATE_REASONS = new Set([
  "no_test_evidence",
  "stale_test_evidence",
  "tests_failing",
  "changes_outside_allowed_paths",
]);

/**
 * A scripted provider whose end, reached right after a rejected finish, says so: the model
 * was asked for more by the finish gate (or a Stop hook), and the script has no turn left
 * to give it. Any other call past the end fails as the scripted provider says.
 */
export function explainScriptEnd(provider: Provider): Provider {
  return {
    async complete(request, signal) {
      try {
        return await provider.complete(request, signal);
      } catch (error) {
        if (!(error instanceof ScriptExhaustedError)) throw error;
        const rejection = lastRejection(request.messages);
        if (rejection === undefined) throw error;
        throw new ScriptExhaustedError(`${error.message}。${rejectionText(rejection)}`, {
          cause: error,
        });
      }
    },
  };
}

/** The `finish_rejected` message the model was answering, if that is the newest message. */
function lastRejection(
  messages: readonly Message[],
): { readonly reasons: readonly string[]; readonly content: string } | undefined {
  const last = messages.at(-1);
  return last !== undefined && "type" in last && last.type === "finish_rejected" ? last : undefined;
}

function rejectionText(rejection: {
  readonly reasons: readonly string[];
  readonly content: string;
}): string {
  const byGate = rejection.reasons.some((reason) => GATE_REASONS.has(reason));
  const who = byGate ? "完成验证门（tests）" : "Stop 钩子";
  const fix = byGate
    ? "在脚本的 finish 之前加上它要的步骤（比如一轮 run_tests），或用 --finish-gate none 不按测试判断完成"
    : "在脚本里加上回应这条理由的轮次，或修改拒绝完成的钩子";
  const content = rejection.content.replace(/\n/g, " ").replace(/。$/, "");
  return `${who}拒绝了上一次完成（${rejection.reasons.join("、")}：${content}），在等模型补上，脚本却没有下一轮了。${fix}`;
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
        provider = explainScriptEnd(
          createScriptedProvider(turns.filter((turn) => turn.agent === goal)),
        );
        queues.set(goal, provider);
      }
      return provider;
    },
  };
}
