/** Freezes an object graph in place (plain data only) and returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    // Texts and numbers are most of a message: no call for what cannot be frozen.
    if (typeof item === "object" && item !== null) deepFreeze(item);
  }
  return Object.freeze(value);
}
