/** 模型可以按名字调用的能力；`execute` 返回的任何东西都会变成一条观察。 */
export interface Tool {
  execute(input: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<unknown>;
}

/** 一次运行的工具，以模型在 `tool_call` 里使用的名字为键。 */
export type ToolSet = Readonly<Record<string, Tool>>;
