import {
  formatValueIssues,
  isAbortError,
  type Redactor,
  serializeObservation,
  toValueIssues,
} from "@coding-agent/agent-core";
import type { z } from "zod";
import { ProviderError } from "./errors.ts";

/** Longest body excerpt an error carries: enough to read the API's error, never a flood. */
export const MAX_EXCERPT_CHARS = 500;

/** One JSON POST to a model API. */
export interface JsonPost<Schema extends z.ZodType> {
  /** Who answers, for messages: "OpenAI 兼容接口", "Anthropic". */
  readonly vendor: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** The documented shape of a successful response. */
  readonly schema: Schema;
  readonly signal: AbortSignal;
  /** Masks the key and other secrets in every excerpt and message. */
  readonly redact: Redactor;
  /** Reads `Retry-After`; `parseRetryAfter` by default (lesson 38 passes the learner's). */
  readonly parseRetryAfter?: RetryAfterParser | undefined;
}

/**
 * `Retry-After` (the header's value, and the response's `Date`) in milliseconds, or
 * undefined when there is none to honour.
 */
export type RetryAfterParser = (value: string | null, date: string | null) => number | undefined;

/**
 * POSTs `body` as JSON and returns the response parsed by `schema`. Every way the
 * call can fail becomes a `ProviderError` naming the status with a bounded,
 * redacted excerpt of the body: a refused connection, HTTP 4xx/5xx, a body that is
 * not JSON, a body that does not match the schema. An abort is rethrown as it is,
 * so the run ends `cancelled`, not `failed`.
 */
export async function postJson<Schema extends z.ZodType>(
  post: JsonPost<Schema>,
): Promise<z.output<Schema>> {
  const response = await sendPost(post);
  const text = await readText(post, response);
  if (!response.ok) throw failedResponse(post, response, text);
  return parseBody(post, response.status, text);
}

/**
 * POSTs `body` as JSON and returns the response, whatever its status. A connection that
 * fails before any answer is a `ProviderError` without status (retryable: no answer); an
 * abort is rethrown as it is, so the run ends `cancelled`, not `failed`.
 */
export async function sendPost(post: Omit<JsonPost<z.ZodType>, "schema">): Promise<Response> {
  const { vendor, url, redact, signal } = post;
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...post.headers },
      body: JSON.stringify(post.body),
      signal,
    });
  } catch (error) {
    throw unreachable(vendor, url, redact, signal, error);
  }
}

/** A response's whole body; a connection lost while reading it counts as no answer. */
export async function readText(
  post: Omit<JsonPost<z.ZodType>, "schema">,
  response: Response,
): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw unreachable(post.vendor, post.url, post.redact, post.signal, error);
  }
}

function unreachable(
  vendor: string,
  url: string,
  redact: Redactor,
  signal: AbortSignal,
  error: unknown,
): unknown {
  if (signal.aborted || isAbortError(error)) return error;
  const reason = connectionFailure(error);
  return new ProviderError(redact(`无法连接 ${vendor}（${url}）：${reason}`), {
    excerpt: "",
    cause: error,
  });
}

/** HTTP 4xx/5xx as a `ProviderError`: the status, a redacted excerpt, any `Retry-After`. */
export function failedResponse(
  post: Pick<JsonPost<z.ZodType>, "vendor" | "redact" | "parseRetryAfter">,
  response: Response,
  text: string,
): ProviderError {
  const excerpt = excerptOf(text, post.redact);
  const status = response.status;
  const retryAfterMs =
    status === 429 || status === 503
      ? (post.parseRetryAfter ?? parseRetryAfter)(
          response.headers.get("retry-after"),
          response.headers.get("date"),
        )
      : undefined;
  const wait = retryAfterMs === undefined ? "" : `（Retry-After：${retryAfterMs} ms）`;
  return new ProviderError(`${post.vendor} 返回 HTTP ${status}${wait}：${excerpt}`, {
    status,
    excerpt,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** A successful body parsed as JSON and checked by the schema, or the `ProviderError` why not. */
export function parseBody<Schema extends z.ZodType>(
  post: Pick<JsonPost<Schema>, "vendor" | "redact" | "schema">,
  status: number,
  text: string,
): z.output<Schema> {
  const { vendor } = post;
  const excerpt = excerptOf(text, post.redact);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderError(`${vendor} 的响应不是 JSON（HTTP ${status}）：${excerpt}`, {
      status,
      excerpt,
    });
  }
  return checkShape(post, status, json, excerpt);
}

/** A parsed value checked by the schema, or a `ProviderError` naming the first issues. */
export function checkShape<Schema extends z.ZodType>(
  post: Pick<JsonPost<Schema>, "vendor" | "schema">,
  status: number,
  json: unknown,
  excerpt: string,
): z.output<Schema> {
  const parsed = post.schema.safeParse(json);
  if (!parsed.success) {
    const issues = formatValueIssues(toValueIssues(parsed.error.issues.slice(0, 5)), "；");
    throw new ProviderError(
      `${post.vendor} 的响应不符合文档中的结构（HTTP ${status}）：${issues}。响应摘录：${excerpt}`,
      { status, excerpt },
    );
  }
  return parsed.data;
}

/**
 * `Retry-After` in milliseconds: a number of seconds, or an HTTP date, counted from the
 * response's own `Date` header when it has one (so a skewed local clock does not matter),
 * else from now. Undefined when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(
  value: string | null,
  date: string | null = null,
  now: () => number = Date.now,
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (!/[a-z]/i.test(text) || Number.isNaN(at)) return undefined;
  const sent = date === null ? Number.NaN : Date.parse(date);
  return Math.max(0, at - (Number.isNaN(sent) ? now() : sent));
}

/** The body as a bounded, redacted excerpt (redacted before the cut, so no half key survives). */
export function excerptOf(text: string, redact: Redactor): string {
  return serializeObservation(text, { redact, maxChars: MAX_EXCERPT_CHARS }).text;
}

/** Why fetch failed before any answer: undici hides the system error in `cause`. */
function connectionFailure(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return cause.code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
