import { ToolErrorResultSchema, type ToolSet } from "@coding-agent/agent-core";
import { type SerializeOptions, serializeResult } from "./serialize-result.ts";

/**
 * 同样的工具，每个都返回已经由 `serializeResult` 序列化好的值，模型看到的正是本课的文本。预料之中的
 * 错误（`{ ok: false, error }`）原样通过：循环自己会把它写回。
 */
export function withSerializedResults(tools: ToolSet, options: SerializeOptions): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [
      name,
      {
        ...tool,
        async execute(input, signal) {
          const value = await tool.execute(input, signal);
          return ToolErrorResultSchema.safeParse(value).success
            ? value
            : serializeResult(value, options);
        },
      },
    ]),
  );
}
