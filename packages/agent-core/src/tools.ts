import type { z } from "zod";
import { InvalidToolRegistryError } from "./errors.ts";
import type { ToolDescription } from "./provider.ts";

/** A tool's validated JSON input (the `input` of a `tool_call`). Frozen. */
export type ToolInput = Readonly<Record<string, z.core.util.JSONType>>;

/**
 * A capability the model may call. `execute` receives the input and the run's
 * signal; it returns any value (serialized by the loop) or throws. It should stop
 * when the signal fires; the loop stops waiting for it either way.
 */
export interface Tool {
  readonly description?: string;
  execute(input: ToolInput, signal: AbortSignal): unknown;
}

/** Tools by name, as a plain object: `{ echo: { execute } }`. */
export type ToolSet = Readonly<Record<string, Tool>>;

/** Looks tools up by name; only names registered on purpose are found. */
export interface ToolRegistry {
  get(name: string): Tool | undefined;
  readonly names: readonly string[];
  readonly descriptions: readonly ToolDescription[];
}

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * Builds a registry from a plain object of tools. Lookup uses own properties only,
 * so a model asking for `constructor` or `__proto__` finds no tool (a plain
 * `tools[name]` would find `Object.prototype` members).
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
    names.map((name) => Object.freeze({ name, description: byName.get(name)?.description ?? "" })),
  );
  return {
    get: (name) => byName.get(name),
    names,
    descriptions,
  };
}

/** True if `value` is already a registry (so `runAgent` accepts either shape). */
export function isToolRegistry(value: ToolSet | ToolRegistry): value is ToolRegistry {
  return (
    typeof (value as ToolRegistry).get === "function" &&
    Array.isArray((value as ToolRegistry).names)
  );
}
