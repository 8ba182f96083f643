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
}

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
  const { vendor, url, redact, signal } = post;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...post.headers },
      body: JSON.stringify(post.body),
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (signal.aborted || isAbortError(error)) throw error;
    const reason = connectionFailure(error);
    throw new ProviderError(redact(`无法连接 ${vendor}（${url}）：${reason}`), {
      excerpt: "",
      cause: error,
    });
  }
  const excerpt = excerptOf(text, redact);
  const status = response.status;
  if (!response.ok) {
    throw new ProviderError(`${vendor} 返回 HTTP ${status}：${excerpt}`, { status, excerpt });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ProviderError(`${vendor} 的响应不是 JSON（HTTP ${status}）：${excerpt}`, {
      status,
      excerpt,
    });
  }
  const parsed = post.schema.safeParse(json);
  if (!parsed.success) {
    const issues = formatValueIssues(toValueIssues(parsed.error.issues.slice(0, 5)), "；");
    throw new ProviderError(
      `${vendor} 的响应不符合文档中的结构（HTTP ${status}）：${issues}。响应摘录：${excerpt}`,
      { status, excerpt },
    );
  }
  return parsed.data;
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
