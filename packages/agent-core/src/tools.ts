import { z } from "zod";
import { deepFreeze } from "./deep-freeze.ts";
import { InvalidToolRegistryError } from "./errors.ts";
import { formatValueIssues, toValueIssues } from "./issues.ts";
import type { ToolError } from "./tool-error.ts";

/** A JSON Schema document (plain JSON data). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a provider receives about a tool: enough to describe it to a model. */
export interface ToolDescription {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool's input (`{ type: "object" }` when the tool declares none). */
  readonly inputSchema: JsonSchema;
}

/** A tool's JSON input (the `input` of a `tool_call`), validated by its schema if it has one. Frozen. */
export type ToolInput = Readonly<Record<string, z.core.util.JSONType>>;

/**
 * A capability the model may call. `inputSchema` (zod) describes its input: the
 * registry validates every call against it before `execute`, and the model sees it
 * as JSON Schema. `execute` receives the validated input and the run's signal; it
 * returns any value (serialized by the loop), returns `toolError(...)` for an
 * expected failure, or throws for an unexpected one. It should stop when the
 * signal fires; the loop stops waiting for it either way.
 */
export interface Tool {
  readonly description?: string;
  /** Synchronous zod schema of the input object. Without one, any JSON object is accepted. */
  readonly inputSchema?: z.ZodType;
  /**
   * What the model is shown instead of `inputSchema`'s conversion: for a tool that comes
   * with its own JSON Schema (an MCP server's), advertised as given. `inputSchema` still
   * validates every call. Must describe an object.
   */
  readonly inputJsonSchema?: JsonSchema;
  /**
   * Asked before the call runs, with the input `execute` will get (the same object):
   * `blockRun(reason)` ends the run `blocked`, and the call is neither run, counted in
   * `toolCalls` nor traced as started; `undefined` lets it run. Where a call may need
   * permission (asking a user, a refusal by policy), this is where to decide it.
   */
  authorize?(input: ToolInput, signal: AbortSignal): Authorization | Promise<Authorization>;
  execute(input: ToolInput, signal: AbortSignal): unknown;
  /**
   * True for a tool whose calls change nothing the run sees (reads; a subagent that works in a
   * copy of its own): the calls of one reply to such tools
   * run at the same time, their results still written in the reply's call order. Left out, a
   * call runs alone, after the calls before it have finished.
   */
  readonly concurrent?: boolean;
}

/** A tool whose `execute` receives the type its schema produces. */
export interface TypedToolDefinition<Schema extends z.ZodType> {
  readonly description?: string;
  readonly inputSchema: Schema;
  authorize?(input: z.output<Schema>, signal: AbortSignal): Authorization | Promise<Authorization>;
  execute(input: z.output<Schema>, signal: AbortSignal): unknown;
  /** See `Tool.concurrent`. */
  readonly concurrent?: boolean;
}

/** Declares a tool with a schema, typing `execute`'s input from it. */
export function defineTool<Schema extends z.ZodType>(
  definition: TypedToolDefinition<Schema>,
): Tool {
  // Sound because the registry passes `execute` only what `inputSchema` produced.
  return definition as unknown as Tool;
}

const BLOCKED = Symbol("coding-agent.blocked");

/**
 * What a tool answers when a call needs a permission that was refused (or never
 * given): the run ends `blocked` with the call and `reason`. Answered by `authorize`,
 * the call never runs and is not counted; returned by `execute`, the run ends the same
 * way but the call has started (and counts), so the tool must not have done its work.
 * Branded with a symbol, so no JSON a tool returns can end a run by accident.
 */
export interface BlockedOutcome {
  readonly [BLOCKED]: true;
  readonly reason: string;
}

/** Ends the run `blocked` (status `blocked`, code `permission_denied`) with `reason`. */
export function blockRun(reason: string): BlockedOutcome {
  return Object.freeze({ [BLOCKED]: true as const, reason });
}

/** What `authorize` answers: a refusal, or `undefined` to let the call run. */
export type Authorization = BlockedOutcome | undefined;

/** True for the value of `blockRun`. */
export function isBlockedOutcome(value: unknown): value is BlockedOutcome {
  return typeof value === "object" && value !== null && BLOCKED in value;
}

/** Tools by name, as a plain object: `{ echo: { execute } }`. */
export type ToolSet = Readonly<Record<string, Tool>>;

/** The outcome of validating a call's input: the input the tool receives, or an `invalid_input` error. */
export type ToolInputCheck =
  | { readonly ok: true; readonly input: ToolInput }
  | { readonly ok: false; readonly error: ToolError };

/** Looks tools up by name; only names registered on purpose are found. */
export interface ToolRegistry {
  get(name: string): Tool | undefined;
  /**
   * Validates `input` against the named tool's schema. Invalid input becomes an
   * `invalid_input` error listing every problem at its path; it never reaches
   * `execute`. Throws only if the schema itself throws (a programming mistake).
   */
  validate(name: string, input: ToolInput): ToolInputCheck;
  readonly names: readonly string[];
  readonly descriptions: readonly ToolDescription[];
}

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** What a tool without `inputSchema` advertises: any JSON object. */
const ANY_OBJECT: JsonSchema = Object.freeze({ type: "object" });

/**
 * Builds a registry from a plain object of tools. Lookup uses own properties only,
 * so a model asking for `constructor` or `__proto__` finds no tool (a plain
 * `tools[name]` would find `Object.prototype` members). Each schema is converted
 * to JSON Schema once, here; a schema that cannot be (not an object, or holding a
 * type JSON cannot carry) is a configuration mistake and throws.
 */
export function createToolRegistry(tools: ToolSet): ToolRegistry {
  const byName = new Map<string, Tool>();
  for (const name of Object.keys(tools)) {
    const tool = tools[name];
    if (!TOOL_NAME.test(name)) {
      throw new InvalidToolRegistryError(
        `工具名 ${JSON.stringify(name)} 无效：需以字母开头，只含字母、数字、_ . -`,
      );
    }
    if (tool === undefined || typeof tool.execute !== "function") {
      throw new InvalidToolRegistryError(`工具 ${name} 缺少 execute 函数`);
    }
    byName.set(name, tool);
  }
  const names = Object.freeze([...byName.keys()].sort());
  const descriptions = Object.freeze(
    names.map((name) => {
      const tool = byName.get(name) as Tool;
      return deepFreeze({
        name,
        description: tool.description ?? "",
        inputSchema:
          tool.inputJsonSchema === undefined
            ? describeInput(name, tool.inputSchema)
            : givenInput(name, tool.inputJsonSchema),
      });
    }),
  );
  return {
    get: (name) => byName.get(name),
    validate(name, input) {
      const schema = byName.get(name)?.inputSchema;
      if (schema === undefined) return { ok: true, input };
      const parsed = schema.safeParse(input);
      if (parsed.success) return { ok: true, input: deepFreeze(parsed.data as ToolInput) };
      const issues = toValueIssues(parsed.error.issues);
      return {
        ok: false,
        error: {
          code: "invalid_input",
          message: `工具 ${name} 的输入不符合它的 inputSchema：${formatValueIssues(issues, "；")}`,
          issues,
        },
      };
    },
    names,
    descriptions,
  };
}

/** True if `value` is already a registry (so `runAgent` accepts either shape). */
export function isToolRegistry(value: ToolSet | ToolRegistry): value is ToolRegistry {
  return (
    typeof (value as ToolRegistry).get === "function" &&
    typeof (value as ToolRegistry).validate === "function" &&
    Array.isArray((value as ToolRegistry).names)
  );
}

/** A JSON Schema given as is (its dialect marker left out, as `describeInput` does). */
function givenInput(name: string, schema: JsonSchema): JsonSchema {
  if (schema.type !== "object") {
    throw new InvalidToolRegistryError(
      `工具 ${name} 的 inputJsonSchema 必须描述一个对象（type: "object"）`,
    );
  }
  const { $schema: _dialect, ...rest } = structuredClone(schema) as Record<string, unknown>;
  return rest as JsonSchema;
}

/** The JSON Schema of a tool's input (zod 4's own export, as the tool receives it: `io: "input"`). */
function describeInput(name: string, schema: z.ZodType | undefined): JsonSchema {
  if (schema === undefined) return ANY_OBJECT;
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidToolRegistryError(
      `工具 ${name} 的 inputSchema 无法转换为 JSON Schema：${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (json.type !== "object") {
    throw new InvalidToolRegistryError(`工具 ${name} 的 inputSchema 必须描述一个对象（z.object）`);
  }
  // The dialect marker means nothing to a model API and some reject it.
  const { $schema: _dialect, ...rest } = json;
  return rest as JsonSchema;
}
