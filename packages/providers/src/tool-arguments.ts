import type { z } from "zod";

type JsonObject = Record<string, z.core.util.JSONType>;

/** A model's tool arguments read as an input object, or why they cannot be. */
export type ToolArguments =
  | { readonly ok: true; readonly input: JsonObject }
  | { readonly ok: false; readonly message: string };

/** Longest part of unreadable arguments quoted back to the model. */
const MAX_QUOTED_CHARS = 200;

/**
 * Reads the `arguments` of a tool call. The spec says a JSON text of an object;
 * servers in the wild also send the object itself (Ollama) or an empty string for
 * "no arguments", and some models write text that is not JSON. The first three are
 * accepted; anything else is reported, so the caller can answer the call with an
 * `invalid_input` result the model can correct, instead of crashing or dropping it.
 */
export function readToolArguments(raw: unknown): ToolArguments {
  if (isJsonObject(raw)) return { ok: true, input: raw };
  if (typeof raw !== "string") {
    return { ok: false, message: `参数应是 JSON 对象，实际是 ${describe(raw)}` };
  }
  if (raw.trim() === "") return { ok: true, input: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `参数不是合法 JSON（${why}）：${quote(raw)}` };
  }
  if (isJsonObject(parsed)) return { ok: true, input: parsed };
  return { ok: false, message: `参数应是 JSON 对象，实际是 ${describe(parsed)}：${quote(raw)}` };
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "数组";
  return typeof value;
}

function quote(text: string): string {
  return JSON.stringify(
    text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text,
  );
}
