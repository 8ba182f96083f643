/** `serializeResult` 的选项。 */
export interface SerializeOptions {
  /** 文本长度的上限，包括标记在内（至少 64）。 */
  readonly maxChars: number;
}

/**
 * 把任意工具返回值变成模型看到的文本：稳定（每一层的对象键都排序）、安全（循环引用、BigInt、Map、
 * Set、Error、undefined 和函数都被写成文字，而不是抛出）、有界（最多 `maxChars`，并用标记说明截掉了
 * 多少）。字符串原样保留；其他的都变成 JSON。
 */
export function serializeResult(value: unknown, options: SerializeOptions): string {
  const text = typeof value === "string" ? value : toStableJson(value);
  return capText(text, options.maxChars);
}

/** 每一层对象键都排序的 JSON；遇到上面这些值从不抛出。 */
export function toStableJson(value: unknown): string {
  return JSON.stringify(toJsonSafe(value, new Set())) ?? '"[undefined]"';
}

function toJsonSafe(value: unknown, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // NaN 和 Infinity 不是 JSON：JSON.stringify 会悄悄写成 null。
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      // JSON.stringify 遇到 BigInt 会抛出。
      return `${value.toString()}n`;
    case "undefined":
      // JSON.stringify 会丢掉值为 undefined 的字段：模型就不知道它存在。
      return "[undefined]";
    case "function":
      return `[Function ${value.name || "anonymous"}]`;
    case "symbol":
      return value.toString();
    case "object":
      return value === null ? null : objectToJsonSafe(value, ancestors);
    default:
      return `[${typeof value}]`;
  }
}

function objectToJsonSafe(value: object, ancestors: Set<object>): unknown {
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? "[Invalid Date]" : value.toISOString();
  // #region exercise
  // 解答：只有“祖先”才构成循环；同一个对象在两个分支里出现不是循环，要各自完整输出。
  if (ancestors.has(value)) return "[Circular]";
  ancestors.add(value);
  try {
    return containerToJsonSafe(value, (item) => toJsonSafe(item, ancestors));
  } finally {
    ancestors.delete(value);
  }
  // #endregion exercise
}

function containerToJsonSafe(value: object, next: (item: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map(next);
  if (value instanceof Map) {
    return { "[Map]": [...value.entries()].map(([key, item]) => [next(key), next(item)]) };
  }
  if (value instanceof Set) return { "[Set]": [...value].map(next) };
  if (value instanceof Error) {
    // message 和 name 不是自己的可枚举字段：JSON.stringify 会写成 {}。
    const fields: Record<string, unknown> = { ...value, message: value.message, name: value.name };
    if (value.cause !== undefined) fields.cause = value.cause;
    return sortedRecord(fields, next);
  }
  return sortedRecord(value as Record<string, unknown>, next);
}

function sortedRecord(record: Record<string, unknown>, next: (item: unknown) => unknown): unknown {
  // 没有原型的记录，"__proto__" 这样的键仍然只是数据。
  const out: Record<string, unknown> = Object.create(null);
  // #region exercise
  // 解答：按 key 排序后再写入：同样的数据无论以什么顺序构造，得到的文本都一样。
  for (const key of Object.keys(record).sort()) out[key] = next(record[key]);
  // #endregion exercise
  return out;
}

/**
 * 把文本控制在 `maxChars` 之内：保留头和尾，中间放一个标记，说明省略了多少字符、原文多长。结果从不
 * 超过 `maxChars`，所以对截断过的文本再截一次什么都不变。
 */
export function capText(text: string, maxChars: number): string {
  // #region exercise
  // 解答：标记本身也占长度。先按最宽的标记留出位置，再把头尾各留一半。
  if (text.length <= maxChars) return text;
  const room = Math.max(0, maxChars - marker(text.length, text.length).length);
  const head = Math.ceil(room / 2);
  const tail = room - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}${marker(omitted, text.length)}${text.slice(text.length - tail)}`;
  // #endregion exercise
}

/** 截断文本中间的标记：截掉了多少，总共多少。 */
export function marker(omitted: number, originalLength: number): string {
  return `\n…[truncated: omitted ${omitted} of ${originalLength} chars]…\n`;
}
