import { createRedactor, type ModelRequest, type Redactor } from "@coding-agent/agent-core";
import { InvalidProviderOptionsError } from "./errors.ts";
import type { RetryAfterParser } from "./http.ts";
import type { AddToolCallDelta } from "./openai-stream.ts";
import { REASONING_EFFORTS, type ReasoningEffort, type VendorName } from "./presets.ts";

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
   * Gets the model's reasoning as it streams in (a display, like `onText`; not redacted).
   */
  readonly onReasoning?: (text: string) => void;
  /**
   * How hard a reasoning model thinks, as the vendor's documented parameter; unset keeps the
   * vendor's default (see `presets.ts`).
   */
  readonly reasoningEffort?: ReasoningEffort;
  /**
   * The vendor behind an OpenAI-compatible base URL (`deepseek`, `qwen`, …): its effort
   * parameter and its name in errors. The generic `openai` when left out.
   */
  readonly vendor?: VendorName;
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
  if (
    options.reasoningEffort !== undefined &&
    !(REASONING_EFFORTS as readonly string[]).includes(options.reasoningEffort)
  ) {
    throw new InvalidProviderOptionsError(
      `reasoningEffort 只能是 ${REASONING_EFFORTS.join("、")}：${String(options.reasoningEffort)}`,
    );
  }
  return base;
}

/**
 * Who answers a request: wire, endpoint and model. Stamped on the opaque reasoning a reply
 * carries, so it goes back only to the model that wrote it.
 */
export function originOf(wire: string, base: string, model: string): string {
  return `${wire} ${base} ${model}`;
}

/** A redactor that masks this key as well as the usual secret shapes. */
export function redactorFor(apiKey: string | undefined): Redactor {
  return createRedactor(apiKey === undefined || apiKey === "" ? {} : { secrets: [apiKey] });
}

/** The system prompt of one request (its own, else the provider's option), or undefined for none. */
export async function systemPromptFor(
  options: ProviderOptions,
  request: ModelRequest,
): Promise<string | undefined> {
  // The request's own prompt first: the runtime set it, and its token estimate counted it.
  if (request.system !== undefined) return request.system;
  return typeof options.system === "function" ? await options.system(request) : options.system;
}
