import type { Action, ToolCallAction } from "./action.ts";
import { deepFreeze } from "./deep-freeze.ts";
import { type Redactor, redactJson } from "./redact.ts";
import { clip, type Run } from "./run-state.ts";
import { truncateMiddle } from "./serialize.ts";
import type { Task } from "./task.ts";

/** Longest tool name or call id recorded; a longer one is cut (a real one is far shorter). */
const MAX_IDENTIFIER_CHARS = 200;

/** The task as the model and the history see it: every text redacted. */
export function redactTask(task: Task, redact: Redactor): Task {
  return {
    ...task,
    goal: redact(task.goal),
    ...(task.workspace === undefined ? {} : { workspace: redact(task.workspace) }),
    ...(task.constraints === undefined ? {} : { constraints: task.constraints.map(redact) }),
  };
}

/**
 * The action as it is recorded: texts, tool name, call id and every input key and
 * string redacted; names bounded; the call id made unique in the run; the input a
 * private, frozen copy (the tool gets exactly what the history records).
 */
export function redactAction(run: Run, action: Action, defaultCallId: string): Action {
  switch (action.type) {
    case "message":
      return { type: "message", content: run.redact(action.content) };
    case "finish":
      return { type: "finish", summary: run.redact(action.summary) };
    case "tool_call":
      return {
        type: "tool_call",
        tool: identifier(run, action.tool),
        input: deepFreeze(redactJson(run.redact, action.input)) as ToolCallAction["input"],
        // The default id is the runtime's own text: nothing in it to redact or bound.
        callId: uniqueCallId(
          run,
          action.callId === undefined ? defaultCallId : identifier(run, action.callId),
        ),
        ...(action.inputError === undefined ? {} : { inputError: clip(run, action.inputError) }),
      };
    default: {
      const unreachable: never = action;
      throw new TypeError(`unhandled action ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The id (redacted and bounded) suffixed until it is unused in this run. */
function uniqueCallId(run: Run, base: string): string {
  let callId = base;
  for (let n = 2; run.callIds.has(callId); n += 1) callId = `${base}_${n}`;
  run.callIds.add(callId);
  return callId;
}

function identifier(run: Run, text: string): string {
  return truncateMiddle(run.redact(text), MAX_IDENTIFIER_CHARS).text;
}
