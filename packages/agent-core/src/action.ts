import { z } from "zod";
import { errorMessage } from "./errors.ts";
import { formatValueIssues, toValueIssues } from "./issues.ts";

/** The model speaks to the user (or thinks aloud); no side effect. */
export const MessageActionSchema = z.strictObject({
  type: z.literal("message"),
  content: z.string(),
});

/** The model asks the runtime to run a registered tool with a JSON input. */
export const ToolCallActionSchema = z.strictObject({
  type: z.literal("tool_call"),
  tool: z.string().min(1),
  input: z.record(z.string(), z.json()),
  callId: z.string().min(1).optional(),
  /**
   * Set by a provider that could not read the model's arguments (not JSON, not an
   * object): why. The tool never runs; the call is answered `invalid_input` so the
   * model can correct it, instead of the reply being dropped or the run crashing.
   */
  inputError: z.string().min(1).optional(),
});

/** The model proposes that the task is done. */
export const FinishActionSchema = z.strictObject({
  type: z.literal("finish"),
  summary: z.string(),
});

/** Everything a model may reply: `message | tool_call | finish`, discriminated on `type`. */
export const ActionSchema = z.discriminatedUnion("type", [
  MessageActionSchema,
  ToolCallActionSchema,
  FinishActionSchema,
]);

/** A validated model action. */
export type Action = z.infer<typeof ActionSchema>;
/** The `type` of an action. */
export type ActionType = Action["type"];
/** A validated `message` action. */
export type MessageAction = z.infer<typeof MessageActionSchema>;
/** A validated `finish` action. */
type FinishAction = z.infer<typeof FinishActionSchema>;
/** A validated `tool_call` action. */
export type ToolCallAction = z.infer<typeof ToolCallActionSchema>;

/** The outcome of `parseAction`: the action, or a readable reason it was rejected. */
export type ActionParseResult =
  | { readonly ok: true; readonly action: Action }
  | { readonly ok: false; readonly reason: string };

const ACTION_TYPES = ["message", "tool_call", "finish"] as const;

/**
 * Validates an unknown model reply. Never throws: a malformed reply (wrong shape,
 * unknown type, extra keys, non-JSON input, a cyclic object, even a Proxy or a
 * getter that throws) becomes a reason. The reply is read once, into a private
 * copy of its plain data, and only that copy is validated and returned: a getter
 * cannot answer differently later, and a `__proto__` key from `JSON.parse` stays
 * data instead of being dropped.
 */
export function parseAction(reply: unknown): ActionParseResult {
  try {
    return parseCopy(copyPlainData(reply, []));
  } catch (error) {
    // A Proxy or getter that throws, or data deep enough to overflow the stack.
    return { ok: false, reason: `模型回复无法读取或校验：${errorMessage(error)}` };
  }
}

function parseCopy(data: unknown): ActionParseResult {
  if (data === CYCLE) return { ok: false, reason: "模型回复含有循环引用，不是 JSON" };
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { ok: false, reason: `模型回复必须是对象，实际是 ${describe(data)}` };
  }
  const type = (data as { type?: unknown }).type;
  if (type !== "message" && type !== "tool_call" && type !== "finish") {
    return {
      ok: false,
      reason: `未知的动作类型 ${describe(type)}，可选：${ACTION_TYPES.join("、")}`,
    };
  }
  const parsed = ActionSchema.safeParse(data);
  // The copy, not zod's output: zod's records assign keys, which drops `__proto__`.
  if (parsed.success) return { ok: true, action: data as Action };
  const details = formatValueIssues(toValueIssues(parsed.error.issues), "；");
  return { ok: false, reason: `${String(type)} 动作无效：${details}` };
}

/** Marks a value that refers to one of its own ancestors. */
const CYCLE: unique symbol = Symbol("cycle");

/**
 * The reply and the plain objects and arrays inside it copied, each own property read
 * once; every other value kept as it is for the schema to judge. Throws what a hostile
 * value throws.
 */
function copyPlainData(value: unknown, ancestors: object[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  // A stack, not a Set: replies are shallow, and this runs on every model reply.
  if (ancestors.includes(value)) return CYCLE;
  const isArray = Array.isArray(value);
  // The reply itself is always copied, whatever its prototype: kept as it is, a class
  // instance's getters would be read by the schema, and again by the loop, and could
  // answer differently the second time. Deeper down a non-plain value is kept for the
  // schema to reject (inputs are JSON records).
  if (!isArray && ancestors.length > 0) {
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
  }
  ancestors.push(value);
  let out: unknown;
  if (isArray) {
    const items: unknown[] = [];
    for (let index = 0; index < value.length; index += 1) {
      const item = copyItem(value[index], ancestors);
      if (item === CYCLE) return CYCLE;
      items.push(item);
    }
    out = items;
  } else {
    const record: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = copyItem((value as Record<string, unknown>)[key], ancestors);
      if (item === CYCLE) return CYCLE;
      // Assigning "__proto__" would set the prototype instead of copying the data.
      if (key === "__proto__") {
        Object.defineProperty(record, key, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        record[key] = item;
      }
    }
    out = record;
  }
  ancestors.pop();
  return out;
}

/** A value inside the reply: most are texts and numbers, kept without a call. */
function copyItem(value: unknown, ancestors: object[]): unknown {
  return typeof value === "object" && value !== null ? copyPlainData(value, ancestors) : value;
}

/**
 * A stable fingerprint for repeat detection: canonical JSON with keys sorted at
 * every depth, without `callId`. Reordered keys or a fresh call id therefore give
 * the same fingerprint; a different tool, input or text gives a different one.
 */
export function fingerprintAction(action: Action): string {
  // Written out in sorted key order: the same text as `canonicalJson` of the object,
  // without building and sorting it on every step.
  switch (action.type) {
    case "message":
      return `{"content":${JSON.stringify(action.content)},"type":"message"}`;
    case "tool_call":
      return `{"input":${canonicalJson(action.input)}${
        action.inputError === undefined ? "" : `,"inputError":${JSON.stringify(action.inputError)}`
      },"tool":${JSON.stringify(action.tool)},"type":"tool_call"}`;
    case "finish":
      return `{"summary":${JSON.stringify(action.summary)},"type":"finish"}`;
    default: {
      const unreachable: never = action;
      throw new TypeError(`unhandled action ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * True exactly when the two validated actions have the same fingerprint
 * (`fingerprintAction`), compared by value without building either: the same type and
 * texts, the same tool and input (keys in any order), whatever their call ids. A
 * property test holds it to the fingerprints.
 */
export function sameAction(a: Action, b: Action): boolean {
  // No check of `b`'s type: an action of another type lacks the field compared (it reads
  // undefined), so the answer is false all the same.
  switch (a.type) {
    case "message":
      return a.content === (b as MessageAction).content;
    case "finish":
      return a.summary === (b as FinishAction).summary;
    case "tool_call": {
      const other = b as ToolCallAction;
      return (
        a.tool === other.tool && a.inputError === other.inputError && sameJson(a.input, other.input)
      );
    }
    default: {
      const unreachable: never = a;
      throw new TypeError(`unhandled action ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Equal JSON values, as `canonicalJson` would tell (keys in any order; `-0` is `0`). An
 * array is compared like an object of its indices, after both are known to be arrays.
 */
function sameJson(
  a: z.core.util.JSONType | undefined,
  b: z.core.util.JSONType | undefined,
): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, z.core.util.JSONType>;
  const right = b as Record<string, z.core.util.JSONType>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
  }
  return true;
}

/** JSON of a JSON value with object keys sorted at every depth. */
export function canonicalJson(value: z.core.util.JSONType): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  let out: string;
  if (Array.isArray(value)) {
    out = "[";
    for (let index = 0; index < value.length; index += 1) {
      if (index > 0) out += ",";
      out += canonicalJson(value[index] as z.core.util.JSONType);
    }
    return `${out}]`;
  }
  out = "{";
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (item === undefined) continue;
    if (out.length > 1) out += ",";
    out += `${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${out}}`;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "数组";
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "undefined") return "undefined";
  return typeof value === "object" ? "对象" : `${typeof value} ${String(value)}`;
}
