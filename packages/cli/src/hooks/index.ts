import { createHookExtension, type Redactor, type RunExtension } from "@coding-agent/agent-core";
import type { StateLog } from "../state/log.ts";
import { createCommandHooks, type HookDecision } from "./command-hooks.ts";
import { type HookEntry, loadHookSettings } from "./settings.ts";

export { loadHookSettings };

/**
 * The command hooks of a run as two extensions (lesson 36), placed apart in the run:
 *
 * - `tools` (PreToolUse, PostToolUse) right after the resume and before the state log: the
 *   log's `tool_intent` holds the input the tool really gets (a hook's rewrite), a vetoed call
 *   leaves no intent, and the `tool_result` is what the model saw. A call already answered
 *   by the resume runs no hook; every call a hook lets through is still asked of the tool's
 *   own permission check (the approval gate), which always comes last.
 * - `stop` (Stop) after the finish gate: a finish the gate already refused runs no hook.
 *
 * Each decision that changes the run is written to the state log (`hook_decision`, see
 * `HookDecision`) before it takes effect, so a replay and a resume take the same path
 * without running any hook. A child run (lesson 39) has no log: it passes `record` instead,
 * and its hooks' decisions are in its trace.
 */
export function hookExtensions(options: {
  readonly entries: readonly HookEntry[];
  readonly runId: string;
  readonly workspace: string;
  readonly redact: Redactor;
  readonly env: NodeJS.ProcessEnv;
  readonly warn: (line: string) => void;
  readonly log: StateLog | { readonly record: (decision: HookDecision) => Promise<void> };
}): { readonly tools: RunExtension[]; readonly stop: RunExtension[] } {
  const { log, ...rest } = options;
  if (options.entries.length === 0) return { tools: [], stop: [] };
  const hooks = createCommandHooks({
    ...rest,
    record:
      "record" in log
        ? log.record
        : async (decision) => {
            await log.append({ type: "hook_decision", ...decision }, { sync: true });
          },
  });
  return {
    tools: hooks.tools === undefined ? [] : [createHookExtension(hooks.tools)],
    stop: hooks.stop === undefined ? [] : [createHookExtension(hooks.stop)],
  };
}
