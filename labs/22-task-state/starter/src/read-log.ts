/** 状态日志里的一行：至少有 seq 和 type，其余字段原样保留。 */
export interface StateLine {
  readonly seq: number;
  readonly type: string;
  readonly [field: string]: unknown;
}

/** 读回的日志：完整的事件、它们占的字节数（继续写之前从这里截断），以及可能的警告。 */
export type StateLogRead =
  | {
      readonly ok: true;
      readonly events: readonly StateLine[];
      readonly bytes: number;
      readonly warning?: string;
    }
  | { readonly ok: false; readonly message: string };

/** 丢弃最后一行时的警告。 */
const TORN = "最后一行不完整（写入时中断），已丢弃";

/**
 * 读回一份 state.jsonl。崩溃只可能打断最后一次写入，所以只有最后一行可以“不完整”：
 * 它被丢弃并给出警告。别处坏掉的行、seq 不连续、不以 run_started 开头，都说明日志
 * 不可信，返回错误并指出第几行。
 */
export function readStateLog(text: string): StateLogRead {
  const lines = text.split("\n");
  // 最后一个换行之后：要么什么都没有，要么是一行被打断的写入。
  const tail = lines.pop() ?? "";
  let warning: string | undefined;
  const events: StateLine[] = [];
  let bytes = 0;
  // #region exercise
  // TODO(lab-22): 现在每一行都照单全收，bytes 是整段文字的长度。
  //   目标：events 恰好是崩溃之前写完的那些事件；bytes 是它们在文件里占的字节，从这里截断再追加，日志读得回来。
  //   约束：崩溃只会打断最后一次写入；除此之外读不懂或对不上号的地方都说明日志不可信，返回错误并写出第几行。
  for (const line of [...lines, tail]) {
    const event = parseLine(line);
    if (event !== undefined) events.push(event);
  }
  bytes = Buffer.byteLength(text);
  void TORN;
  // #endregion exercise
  if (events[0]?.type !== "run_started") {
    return { ok: false, message: "日志不是以 run_started 开头" };
  }
  return { ok: true, events, bytes, ...(warning === undefined ? {} : { warning }) };
}

/** 一行 JSON：是带整数 seq 和字符串 type 的对象才算事件，否则为 undefined。 */
function parseLine(line: string): StateLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { seq, type } = value as { seq?: unknown; type?: unknown };
  if (!Number.isSafeInteger(seq) || typeof type !== "string") return undefined;
  return value as StateLine;
}
