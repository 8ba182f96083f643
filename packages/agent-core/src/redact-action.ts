import type { Action, ToolCallAction } from "./action.ts";
import { deepFreeze } from "./deep-freeze.ts";
import type { Redactor } from "./redact.ts";
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

/**
 * JSON data with every string and key redacted. The data is the private copy
 * `parseAction` made of the reply, so a part in which nothing is masked (almost every
 * part) is kept as it is instead of being copied again; a part with a secret is copied.
 */
function redactJson(redact: Redactor, value: unknown): unknown {
  if (typeof value === "string") return redact(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      const redacted = redactJson(redact, item);
      if (redacted === item) continue;
      out ??= value.slice();
      out[index] = redacted;
    }
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (redact(key) !== key || redactJson(redact, item) !== item) {
      return redactRecord(redact, record);
    }
  }
  return record;
}

/** A copy of a record with every key and value redacted; `__proto__` stays a data key. */
function redactRecord(redact: Redactor, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const item = redactJson(redact, record[key]);
    // Assigning "__proto__" would set the prototype instead of copying the data.
    if (key === "__proto__") {
      // Read-only from the start: the copy is deep-frozen next (`redactAction`).
      Object.defineProperty(out, key, { value: item, enumerable: true });
    } else {
      out[redact(key)] = item;
    }
  }
  return out;
}
