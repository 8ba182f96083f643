/** Freezes an object graph in place (plain data only) and returns it. */
export function deepFreeze<T>(value: T): T {
  // A text, a number, null or undefined is frozen already, and so is a part frozen before;
  // a function is not data, and stays as it is.
  if (typeof value === "function" || Object.isFrozen(value)) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) deepFreeze(record[key]);
  return Object.freeze(value);
}
