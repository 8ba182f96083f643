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
 * 在工具运行之前，用工具的 zod schema 检查一次工具调用的输入。
 * @param tool 工具的名字，写进模型读到的消息里
 * @param schema 工具的 `inputSchema`
 * @param input 模型 `tool_call` 里的 `input`，不可信
 * @returns 工具收到的输入（schema 解析后的样子），或者一个 `invalid_input` 错误，按路径列出每一个问
 * 题
 */
export function validateToolInput(
  tool: string,
  schema: z.ZodType,
  input: ToolInput,
): ToolInputCheck {
  const parsed = schema.safeParse(input);
  // #region exercise
  // TODO(lab-06): 抛异常会让整个运行以 tool_error 失败，模型没有机会改正输入。
  // 改成返回 { ok: false, error }：error 用下面的 invalidInputError 生成（code 为 invalid_input，
  // issues 列出每一个问题和它的路径）。
  if (!parsed.success) throw new Error(`工具 ${tool} 的输入无效`);
  // TODO(lab-06): 交给工具的应当是 schema 解析后的值（默认值已补上），而不是原始输入。
  return { ok: true, input };
  // #endregion exercise
}

/** 模型读到的 `invalid_input` 错误：每一个问题，各自带着路径。 */
export function invalidInputError(tool: string, issues: readonly z.core.$ZodIssue[]): ToolError {
  const found = toValueIssues(issues);
  return {
    code: "invalid_input",
    message: `工具 ${tool} 的输入不符合它的 inputSchema：${formatValueIssues(found, "；")}`,
    issues: found,
  };
}

/** 告诉模型的关于工具的信息：名字、描述，以及用 JSON Schema 表示的输入。 */
export function describeTool(name: string, tool: Tool): ToolDescription {
  const description = tool.description ?? "";
  if (tool.inputSchema === undefined) {
    return { name, description, inputSchema: { type: "object" } };
  }
  // zod 4 自己就能导出 JSON Schema；`io: "input"` 描述的是模型必须发送的内容。
  const { $schema: _dialect, ...inputSchema } = z.toJSONSchema(tool.inputSchema, { io: "input" });
  return { name, description, inputSchema };
}

/**
 * `runAgent` 可以用来替换它自带注册表的注册表：按名字找工具，向模型描述工具，并在循环运行工具之前用
 * `validateToolInput` 校验每次调用的输入。
 */
export function createContractRegistry(tools: ToolSet): ToolRegistry {
  // 只认自己的属性：模型请求 "constructor" 时必须找不到任何工具。
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
