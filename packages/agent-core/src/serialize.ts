import { type Redactor, redactJson } from "./redact.ts";

/** Default cap on the characters of one observation that reach the model. */
export const DEFAULT_MAX_OBSERVATION_CHARS = 8_000;

/** Deepest nesting rendered before a subtree is replaced by a marker. */
const MAX_DEPTH = 32;

/** A tool value turned into model-ready text: bounded, redacted, stable. */
export interface Observation {
  /** The text the model sees: at most `maxChars` characters. */
  readonly text: string;
  /** True when the middle was cut out. */
  readonly truncated: boolean;
  /** Length of the full (redacted) text before the cut. */
  readonly originalLength: number;
}

/** Options for `serializeObservation`. */
export interface SerializeOptions {
  /** Upper bound on `text.length`, marker included. Default 8,000. */
  readonly maxChars?: number;
  /** Applied to the full text before the cut, so no half secret survives at a cut edge. */
  readonly redact?: Redactor;
  /**
   * Said in the marker when the text is cut: the call that brings the omitted part
   * back. With it the marker also names the omitted characters (`, A–B; hint`).
   */
  readonly omittedHint?: string;
}

/**
 * Turns any tool value into observation text. Never throws. Strings are kept as
 * they are; anything else becomes JSON with sorted keys, with cycles, BigInt,
 * undefined, Error, Map, Set, Date, functions and symbols rendered explicitly.
 * The values are redacted first (each string on its own, so the text stays valid
 * JSON), then the text is cut once: head and tail are kept around a marker that
 * states the original length.
 */
export function serializeObservation(value: unknown, options: SerializeOptions = {}): Observation {
  const maxChars = options.maxChars ?? DEFAULT_MAX_OBSERVATION_CHARS;
  let full: string;
  try {
    const { redact } = options;
    // Values are redacted, never the serialized text: a mask must not cross a JSON escape
    // (`\n`) into the next line nor put quotes inside a JSON string.
    if (typeof value === "string") full = redact === undefined ? value : redact(value);
    else {
      const safe = toJsonSafe(value, new Set(), 0);
      full = JSON.stringify(redact === undefined ? safe : redactJson(redact, safe)) ?? "undefined";
    }
  } catch (error) {
    full = `[Unserializable: ${safeMessage(error)}]`;
  }
  return truncateMiddle(full, maxChars, options.omittedHint);
}

/**
 * Cuts the middle out of a text longer than `maxChars`, keeping head and tail
 * around an explicit marker that says how much was cut:
 * `…[truncated: omitted X of N chars]…`. The result is never longer than
 * `maxChars`, so cutting an already cut text again changes nothing (a text is
 * truncated once, never twice). Below `MIN_MARKED_CHARS` the marker itself does
 * not fit: the text is then cut hard to `maxChars`, still flagged `truncated`.
 * With `omittedHint` the marker reads `…[truncated: omitted X of N chars, A–B; hint]…`
 * (A–B: the omitted characters, 1-based), unless it would take over half of `maxChars`.
 */
export function truncateMiddle(text: string, maxChars: number, omittedHint?: string): Observation {
  if (text.length <= maxChars) return { text, truncated: false, originalLength: text.length };
  // A hint that would take more than half the room is left out: the text matters more.
  const hint = omittedHint?.replace(/[\]\r\n]/g, " ");
  const named =
    hint !== undefined &&
    truncationMarker(text.length, text.length, { from: text.length, hint }).length <= maxChars / 2;
  const markerOf = (omitted: number, from: number) =>
    truncationMarker(
      omitted,
      text.length,
      named && hint !== undefined ? { from, hint } : undefined,
    );
  // The marker's length depends on the count it states; the widest count (the
  // whole length) bounds it, so the real marker is never longer than the room kept.
  const room = Math.max(0, maxChars - markerOf(text.length, text.length).length);
  let headEnd = Math.ceil(room / 2);
  let tailStart = text.length - (room - headEnd);
  // Never split a surrogate pair: move the cut points inward past a lone half. (The
  // range tests are for clarity: `charCodeAt` out of range is NaN, which is no surrogate.)
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart += 1;
  const marker = markerOf(tailStart - headEnd, headEnd);
  const cut = `${text.slice(0, headEnd)}${marker}${text.slice(tailStart)}`;
  return {
    text: cut.length <= maxChars ? cut : cut.slice(0, maxChars),
    truncated: true,
    originalLength: text.length,
  };
}

/** The smallest cap that still holds the whole marker (for texts up to 10^9 characters). */
export const MIN_MARKED_CHARS = 64;

/**
 * Matches the marker and captures the omitted and the original character counts
 * (with an `omittedHint`, the marker goes on with the omitted range and the hint).
 */
export const TRUNCATION_MARKER =
  /\n…\[truncated: omitted (\d+) of (\d+) chars(?:, \d+–\d+; [^\]\n]*)?\]…\n/;

function truncationMarker(
  omitted: number,
  originalLength: number,
  part?: { readonly from: number; readonly hint: string },
): string {
  if (part === undefined) return `\n…[truncated: omitted ${omitted} of ${originalLength} chars]…\n`;
  const range = `${part.from + 1}–${part.from + omitted}`;
  return `\n…[truncated: omitted ${omitted} of ${originalLength} chars, ${range}; ${part.hint}]…\n`;
}

/**
 * JSON with object keys sorted at every depth. Handles values `JSON.stringify`
 * rejects or loses; a getter that throws becomes a marker instead of an exception.
 */
export function stableStringify(value: unknown): string {
  const json = JSON.stringify(toJsonSafe(value, new Set(), 0));
  return json ?? "undefined";
}

function toJsonSafe(value: unknown, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return `${value.toString()}n`;
    case "undefined":
      return "[undefined]";
    case "symbol":
      return `[Symbol ${value.description ?? ""}]`;
    case "function":
      return `[Function ${value.name || "anonymous"}]`;
    case "object":
      return objectToJsonSafe(value, ancestors, depth);
    // `typeof` has no other answers today; a future one is rendered, not thrown.
    default:
      return `[${typeof value}]`;
  }
}

function objectToJsonSafe(value: object | null, ancestors: Set<object>, depth: number): unknown {
  if (value === null) return null;
  // Only ancestors count as cycles: the same object shared twice is rendered twice.
  if (ancestors.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[MaxDepth]";
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? "[Invalid Date]" : value.toISOString();
  if (value instanceof RegExp) return value.toString();
  if (ArrayBuffer.isView(value)) return `[${value.constructor.name} ${value.byteLength} bytes]`;
  if (value instanceof ArrayBuffer) return `[ArrayBuffer ${value.byteLength} bytes]`;
  ancestors.add(value);
  try {
    const next = (item: unknown) => toJsonSafe(item, ancestors, depth + 1);
    if (Array.isArray(value)) return value.map(next);
    if (value instanceof Map) {
      return { "[Map]": [...value.entries()].map(([key, item]) => [next(key), next(item)]) };
    }
    if (value instanceof Set) return { "[Set]": [...value].map(next) };
    if (value instanceof Error) {
      const error = ownProperties(value, next);
      error.name = value.name;
      error.message = value.message;
      if (value.cause !== undefined) error.cause = next(value.cause);
      return sortKeys(error);
    }
    return sortKeys(ownProperties(value, next));
  } catch (error) {
    return `[Unserializable: ${safeMessage(error)}]`;
  } finally {
    ancestors.delete(value);
  }
}

/** Own enumerable properties, into a prototype-less record so a `__proto__` key stays data. */
function ownProperties(value: object, next: (item: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    out[key] = readProperty(value, key, next);
  }
  return out;
}

function readProperty(value: object, key: string, next: (item: unknown) => unknown): unknown {
  try {
    return next((value as Record<string, unknown>)[key]);
  } catch (error) {
    return `[Unreadable: ${safeMessage(error)}]`;
  }
}

function sortKeys(record: Record<string, unknown>): Record<string, unknown> {
  const sorted: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(record).sort()) sorted[key] = record[key];
  return sorted;
}

function safeMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return "unknown error";
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
