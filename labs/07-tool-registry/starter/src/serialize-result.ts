/** Options for `serializeResult`. */
export interface SerializeOptions {
  /** Upper bound on the length of the text, marker included (at least 64). */
  readonly maxChars: number;
}

/**
 * Turns any tool value into the text the model sees: stable (object keys sorted
 * at every depth), safe (cycles, BigInt, Map, Set, Error, undefined and functions
 * rendered instead of thrown) and bounded (at most `maxChars`, with a marker that
 * says how much was cut). A string is kept as it is; anything else becomes JSON.
 */
export function serializeResult(value: unknown, options: SerializeOptions): string {
  const text = typeof value === "string" ? value : toStableJson(value);
  return capText(text, options.maxChars);
}

/** JSON with object keys sorted at every depth; never throws on the values above. */
export function toStableJson(value: unknown): string {
  return JSON.stringify(toJsonSafe(value, new Set())) ?? '"[undefined]"';
}

function toJsonSafe(value: unknown, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // NaN and Infinity are not JSON: JSON.stringify would quietly write null.
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      // JSON.stringify throws on a BigInt.
      return `${value.toString()}n`;
    case "undefined":
      // JSON.stringify drops an undefined field: the model would not know it was there.
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
  // TODO(lab-07): 对象里如果有指向祖先的引用（循环），这里会无限递归，直到栈溢出。
  // 用 ancestors 记下“正在处理的祖先”，遇到祖先就返回 "[Circular]"；处理完记得移出，
  // 否则同一个对象在两个分支里出现（共享，不是循环）也会被误判。
  return containerToJsonSafe(value, (item) => toJsonSafe(item, ancestors));
  // #endregion exercise
}

function containerToJsonSafe(value: object, next: (item: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map(next);
  if (value instanceof Map) {
    return { "[Map]": [...value.entries()].map(([key, item]) => [next(key), next(item)]) };
  }
  if (value instanceof Set) return { "[Set]": [...value].map(next) };
  if (value instanceof Error) {
    // message and name are not own enumerable fields: JSON.stringify would write {}.
    const fields: Record<string, unknown> = { ...value, message: value.message, name: value.name };
    if (value.cause !== undefined) fields.cause = value.cause;
    return sortedRecord(fields, next);
  }
  return sortedRecord(value as Record<string, unknown>, next);
}

function sortedRecord(record: Record<string, unknown>, next: (item: unknown) => unknown): unknown {
  // A prototype-less record, so a "__proto__" key stays data.
  const out: Record<string, unknown> = Object.create(null);
  // #region exercise
  // TODO(lab-07): key 按插入顺序写出：同样的数据换个构造顺序，文本就变了。按 key 排序后再写入。
  for (const key of Object.keys(record)) out[key] = next(record[key]);
  // #endregion exercise
  return out;
}

/**
 * Keeps a text within `maxChars`: head and tail around a marker that states how
 * many characters were omitted and how long the text was. Never longer than
 * `maxChars`, so cutting a cut text again changes nothing.
 */
export function capText(text: string, maxChars: number): string {
  // #region exercise
  // TODO(lab-07): 悄悄截掉尾部：模型既不知道结果被截断了，也看不到结尾（报错常常在结尾）。
  // 超过 maxChars 时保留头和尾，中间换成 marker(省略的字符数, 原长度)；标记本身也占长度，结果不能超过 maxChars。
  return text.length <= maxChars ? text : text.slice(0, maxChars);
  // #endregion exercise
}

/** The marker in the middle of a cut text: how much was cut, out of how much. */
export function marker(omitted: number, originalLength: number): string {
  return `\n…[truncated: omitted ${omitted} of ${originalLength} chars]…\n`;
}
