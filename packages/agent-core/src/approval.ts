import type { RunExtension, ToolCallInfo } from "./extension.ts";
import { isBlockedOutcome, type ToolRegistry } from "./tools.ts";

/**
 * The runtime's own permission check, on the extension interface: before a call runs,
 * its tool's `authorize` (if it has one) is asked with the input `execute` will get (the
 * same object, so a tool may remember what it allowed); `blockRun(reason)` ends the run
 * `blocked`. Asked after every extension of the run, so an extension that answers or
 * vetoes a call first (a resume, a hook) spares the user a question.
 */
export const toolApproval: RunExtension = Object.freeze({
  name: "authorize",
  async beforeToolCall({ input, definition }: ToolCallInfo, signal: AbortSignal) {
    const answer = await definition.authorize?.(input, signal);
    return isBlockedOutcome(answer) ? { kind: "block" as const, reason: answer.reason } : undefined;
  },
});

/** True if any registered tool asks for permission (else the check is left out of the run). */
export function needsApproval(tools: ToolRegistry): boolean {
  return tools.names.some((name) => tools.get(name)?.authorize !== undefined);
}
