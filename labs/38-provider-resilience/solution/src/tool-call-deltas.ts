import type { AddToolCallDelta, ToolCallParts } from "@coding-agent/providers";

const fresh = (): ToolCallParts => ({ id: undefined, name: "", pieces: [], whole: undefined });

/**
 * 把流式回复里的一个 tool_calls delta 加进已经拼出的调用（docs/contracts.md §7）：
 * - 一个 delta 属于哪个调用，只看它的 index：并行的几个调用的 delta 可以交错到达；
 * - 一个调用的第一个 delta 带来 id 和 name，之后的带来 arguments 的片段，按到达顺序收进 pieces；
 * - 服务器重复发送的 name 不会叠成两遍；arguments 本身就是 JSON 对象的（Ollama）整个保留在 whole。
 */
export const addToolCallDelta: AddToolCallDelta = (calls, delta) => {
  // #region exercise
  const call = calls.get(delta.index) ?? fresh();
  calls.set(delta.index, call);
  // #endregion exercise
  if (delta.id != null && delta.id !== "") call.id ??= delta.id;
  const name = delta.function?.name;
  if (typeof name === "string" && name !== "" && call.name !== name) call.name += name;
  const args = delta.function?.arguments;
  if (typeof args === "string") call.pieces.push(args);
  else if (args !== undefined && args !== null) call.whole = args;
};
