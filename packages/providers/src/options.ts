import { createRedactor, type ModelRequest, type Redactor } from "@coding-agent/agent-core";
import { InvalidProviderOptionsError } from "./errors.ts";
import type { RetryAfterParser } from "./http.ts";
import type { AddToolCallDelta } from "./openai-stream.ts";

/** What every adapter is configured with. */
export interface ProviderOptions {
  /** The model name the API expects. Required. */
  readonly model: string;
  /** The key, sent in the vendor's auth header and masked in every error. */
  readonly apiKey?: string;
  /** The API's base URL; the vendor's own when left out. */
  readonly baseUrl?: string;
  /**
   * A system prompt sent before the task: a text, or a function of the request (a prompt
   * that grows as the run touches folders with their own `AGENTS.md`).
   */
  readonly system?: string | ((request: ModelRequest) => string | Promise<string>);
  /** Cap on the tokens of one reply. */
  readonly maxTokens?: number;
  /**
   * Streams each reply over server-sent events (default true). The reply the loop gets
   * is the same either way; `false` sends the plain request for servers without SSE (a
   * server that ignores `stream: true` and answers JSON is read as JSON anyway).
   */
  readonly stream?: boolean;
  /**
   * Gets the reply's text as it streams in, piece by piece (a display: nothing is used
   * before the stream's end event, and a stream that breaks off is retried). Not redacted:
   * the caller shows it, so the caller masks it.
   */
  readonly onText?: (text: string) => void;
  /**
   * Reads a 429/503's `Retry-After` into the wait the run honours; the providers' own
   * `parseRetryAfter` by default (lesson 38 passes the learner's).
   */
  readonly parseRetryAfter?: RetryAfterParser;
  /**
   * Adds one streamed tool-call delta of an OpenAI-compatible reply to the calls built so
   * far; the adapter's own `addToolCallDelta` by default (lesson 38 passes the learner's).
   */
  readonly addToolCallDelta?: AddToolCallDelta;
}

/** Checks the options every adapter shares; returns the base URL without a trailing slash. */
export function checkOptions(options: ProviderOptions, defaultBaseUrl: string): string {
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw new InvalidProviderOptionsError("缺少模型名（model）");
  }
  const base = (options.baseUrl ?? defaultBaseUrl).replace(/\/+$/, "");
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new InvalidProviderOptionsError(`base URL 无效：${base}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidProviderOptionsError(`base URL 必须是 http(s)：${base}`);
  }
  if (
    options.maxTokens !== undefined &&
    !(Number.isInteger(options.maxTokens) && options.maxTokens > 0)
  ) {
    throw new InvalidProviderOptionsError(`maxTokens 必须是正整数：${options.maxTokens}`);
  }
  return base;
}

/** A redactor that masks this key as well as the usual secret shapes. */
export function redactorFor(apiKey: string | undefined): Redactor {
  return createRedactor(apiKey === undefined || apiKey === "" ? {} : { secrets: [apiKey] });
}

/** The system prompt of one request, or undefined for none. */
export async function systemPromptFor(
  options: ProviderOptions,
  request: ModelRequest,
): Promise<string | undefined> {
  return typeof options.system === "function" ? await options.system(request) : options.system;
}
