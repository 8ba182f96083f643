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
  // 解答：按 key 排序后再写入：同样的数据无论以什么顺序构造，得到的文本都一样。
  for (const key of Object.keys(record).sort()) out[key] = next(record[key]);
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
  // 解答：标记本身也占长度。先按最宽的标记留出位置，再把头尾各留一半。
  if (text.length <= maxChars) return text;
  const room = Math.max(0, maxChars - marker(text.length, text.length).length);
  const head = Math.ceil(room / 2);
  const tail = room - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}${marker(omitted, text.length)}${text.slice(text.length - tail)}`;
  // #endregion exercise
}

/** The marker in the middle of a cut text: how much was cut, out of how much. */
export function marker(omitted: number, originalLength: number): string {
  return `\n…[truncated: omitted ${omitted} of ${originalLength} chars]…\n`;
}
