/** A capability the model may call by name; whatever `execute` returns becomes an observation. */
export interface Tool {
  execute(input: Readonly<Record<string, unknown>>, signal?: AbortSignal): Promise<unknown>;
}

/** The tools of one run, keyed by the name the model uses in a `tool_call`. */
export type ToolSet = Readonly<Record<string, Tool>>;
