import {
  formatValueIssues,
  type Tool,
  type ToolDescription,
  type ToolError,
  type ToolInput,
  type ToolInputCheck,
  type ToolRegistry,
  type ToolSet,
  toValueIssues,
} from "@coding-agent/agent-core";
import { z } from "zod";

/**
 * Checks a tool call's input against the tool's zod schema, before the tool runs.
 *
 * @param tool the tool's name, for the message the model reads
 * @param schema the tool's `inputSchema`
 * @param input the `input` of the model's `tool_call`, untrusted
 * @returns the input the tool receives (as the schema parsed it), or an
 *   `invalid_input` error listing every problem at its path
 */
export function validateToolInput(
  tool: string,
  schema: z.ZodType,
  input: ToolInput,
): ToolInputCheck {
  const parsed = schema.safeParse(input);
  // #region exercise
  // 解答：非法输入不抛异常、也不放行，而是作为结果交还给模型，让它据此改正。
  if (!parsed.success) {
    return { ok: false, error: invalidInputError(tool, parsed.error.issues) };
  }
  // 工具拿到的是 schema 解析后的值（默认值已补上），不是模型发来的原始输入。
  return { ok: true, input: parsed.data as ToolInput };
  // #endregion exercise
}

/** The `invalid_input` error the model reads: every problem, each at its path. */
export function invalidInputError(tool: string, issues: readonly z.core.$ZodIssue[]): ToolError {
  const found = toValueIssues(issues);
  return {
    code: "invalid_input",
    message: `工具 ${tool} 的输入不符合它的 inputSchema：${formatValueIssues(found, "；")}`,
    issues: found,
  };
}

/** What the model is told about a tool: its name, description and input as JSON Schema. */
export function describeTool(name: string, tool: Tool): ToolDescription {
  const description = tool.description ?? "";
  if (tool.inputSchema === undefined) {
    return { name, description, inputSchema: { type: "object" } };
  }
  // zod 4 exports JSON Schema itself; `io: "input"` describes what the model must send.
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.inputSchema, { io: "input" });
  return { name, description, inputSchema };
}

/**
 * A registry that `runAgent` accepts in place of its own: it finds tools by name,
 * describes them to the model, and validates every call's input with
 * `validateToolInput` before the loop may run the tool.
 */
export function createContractRegistry(tools: ToolSet): ToolRegistry {
  // Own properties only: a model asking for "constructor" must find no tool.
  const byName = new Map(Object.entries(tools));
  const names = [...byName.keys()].sort();
  return {
    get: (name) => byName.get(name),
    validate(name, input) {
      const schema = byName.get(name)?.inputSchema;
      return schema === undefined ? { ok: true, input } : validateToolInput(name, schema, input);
    },
    names,
    descriptions: names.map((name) => describeTool(name, byName.get(name) as Tool)),
  };
}
