import { ToolErrorResultSchema, type ToolSet } from "@coding-agent/agent-core";
import { type SerializeOptions, serializeResult } from "./serialize-result.ts";

/**
 * The same tools, each returning its value already serialized by `serializeResult`,
 * so what the model sees is exactly this lesson's text. An expected error
 * (`{ ok: false, error }`) passes through untouched: the loop writes it back itself.
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
