import {
  boundTraceEvent,
  MAX_TRACE_FIELD_CHARS,
  type Redactor,
  redactJson,
  type TraceSink,
} from "@coding-agent/agent-core";

/** 一个 JSONL sink 需要知道的：运行的 id、怎么写一行、怎么脱敏、每个字段最长多少。 */
export interface JsonlSinkOptions {
  readonly runId: string;
  /** 写一行（带换行符）；写不进去时抛出异常。 */
  readonly write: (line: string) => void;
  readonly redact: Redactor;
  /** 每个文本字段最多保留的字符数，默认 MAX_TRACE_FIELD_CHARS（4000）。 */
  readonly maxChars?: number;
}

/**
 * `trace.jsonl` 的 sink：每个事件写成一行 `{ seq, atMs, runId, type, … }`。
 * 每个字符串都脱敏（`redactJson`），每个文本字段有界（`boundTraceEvent`：保留开头和结尾）。
 * 写失败时异常照样抛出：它作为 `requiredTrace` 交给 runAgent，循环听到失败，
 * 就在下一个阶段边界以 `trace_failed` 结束运行。
 */
export function createJsonlSink(options: JsonlSinkOptions): TraceSink {
  const maxChars = options.maxChars ?? MAX_TRACE_FIELD_CHARS;
  return (event) => {
    const { seq, atMs, ...body } = event;
    const line: Record<string, unknown> = { seq, atMs, runId: options.runId, ...body };
    // #region exercise
    // TODO(lab-27): 现在原样写出事件：没有 runId，不脱敏，不限长度，写失败也悄悄吞掉。改成：
    //   - 写出的是上面的 line（seq、atMs、runId、type 在前）；
    //   - 先用 redactJson 脱敏，再用 boundTraceEvent(…, maxChars) 截断——顺序不能反；
    //   - 不要捕获 options.write 的异常。
    void line;
    void maxChars;
    void redactJson;
    void boundTraceEvent;
    try {
      options.write(`${JSON.stringify(event)}\n`);
    } catch {
      // 写不进去就算了
    }
    // #endregion exercise
  };
}
