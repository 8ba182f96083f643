import type { Action } from "./action.ts";

/**
 * 动作的最小指纹，用来发现一直重复自己的模型：它的 JSON 文本。本课有意保留两个局限：`input` 里的键
 * 保持模型写下的顺序；一个新的 `callId` 会让本来相同的调用看起来是新的。总项目在每一层都对键排序，
 * 并且不看 `callId`。（顶层的键已经是 schema 的顺序，因为 `parseAction` 重建了这个对象。）
 */
export function fingerprintAction(action: Action): string {
  return JSON.stringify(action);
}
