import type { ModelRequest } from "./provider.ts";

/**
 * A scripted provider was called more often than its script allows. This is a mistake in
 * the test or in the code under test (a loop that does not stop), so it is thrown, with
 * enough context to tell which.
 */
export class ScriptExhaustedError extends Error {
  override readonly name = "ScriptExhaustedError";
  /** How many actions the script had. */
  readonly scriptLength: number;
  /** 1-based number of the call that found the script empty. */
  readonly call: number;
  /** The request of that call. */
  readonly request: ModelRequest;

  constructor(details: { scriptLength: number; call: number; request: ModelRequest }) {
    const last = details.request.observations.at(-1) ?? "（无）";
    super(
      `脚本化 Provider 的脚本已用完：脚本只有 ${details.scriptLength} 个动作，却收到了第 ${details.call} 次调用。` +
        `最后一条观察：${last}。检查调用方是否在 finish 之后仍在循环，或脚本是否少写了动作。`,
    );
    this.scriptLength = details.scriptLength;
    this.call = details.call;
    this.request = details.request;
  }
}
