import { isAbortError, type Redactor } from "@coding-agent/agent-core";
import { createParser, type EventSourceMessage, ParseError } from "eventsource-parser";
import type { z } from "zod";
import { ProviderError } from "./errors.ts";
import { excerptOf, failedResponse, type JsonPost, parseBody, readText, sendPost } from "./http.ts";

/**
 * Longest event the parser holds (in characters): a server that never ends an event
 * cannot fill the memory; past it the stream is a malformed answer, not retried.
 */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;

/** One streamed POST: the request, and what reads its events. */
export interface StreamPost<Schema extends z.ZodType> extends JsonPost<Schema> {
  /** The vendor's end event, for messages: `[DONE]`, `message_stop`. */
  readonly endEvent: string;
  /**
   * Reads one event; answers true at the end event (nothing after it is read). It throws a
   * `ProviderError` for an event it cannot read (see `malformedEvent`).
   */
  readonly onEvent: (event: EventSourceMessage) => boolean;
}

/** How a streamed POST ended: its events were read to the end, or the server answered JSON. */
export type StreamOutcome<Schema extends z.ZodType> =
  | { readonly kind: "streamed" }
  /** A server that ignores `stream: true` answers one JSON document: it is used as it is. */
  | { readonly kind: "json"; readonly value: z.output<Schema> };

/**
 * POSTs `body` and reads the answer as server-sent events (`text/event-stream`), parsed by
 * `eventsource-parser` from the bytes as they arrive: a chunk may end inside an event,
 * inside a line or inside a UTF-8 character (the decoder keeps the partial character).
 * Failures are `ProviderError`s, as `postJson`'s: HTTP 4xx/5xx with its excerpt and
 * `Retry-After`; a stream that ends or breaks off before `endEvent` has no status (the
 * reply never arrived whole: retryable like no answer, and nothing of it is used); an event
 * that cannot be read is the `onEvent`'s error. An abort is rethrown as it is.
 */
export async function postStream<Schema extends z.ZodType>(
  post: StreamPost<Schema>,
): Promise<StreamOutcome<Schema>> {
  const response = await sendPost(post);
  if (!response.ok) throw failedResponse(post, response, await readText(post, response));
  const type = response.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("text/event-stream") || response.body === null) {
    const text = await readText(post, response);
    return { kind: "json", value: parseBody(post, response.status, text) };
  }
  let ended = false;
  let failure: unknown;
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onError(error) {
      // Unknown fields and bad `retry:` lines are ignored, as the SSE rules say.
      if (error.type === "max-buffer-size-exceeded") failure ??= oversized(post, error);
    },
    onEvent(event) {
      if (ended || failure !== undefined) return;
      try {
        ended = post.onEvent(event);
      } catch (error) {
        failure = error;
      }
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!ended && failure === undefined) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (post.signal.aborted || isAbortError(error)) throw error;
        throw brokenStream(post, `连接中断（${reasonOf(error)}）`, error);
      }
      if (chunk.done) break;
      try {
        parser.feed(chunk.value);
      } catch (error) {
        // A parser stopped by an oversized event throws on the next feed: that event decides.
        failure ??= error instanceof ParseError ? oversized(post, error) : error;
      }
    }
    // A last event without its blank line is not an event (the SSE rules): it does not count.
    if (failure !== undefined) throw failure;
    if (!ended) throw brokenStream(post, "流提前结束");
    return { kind: "streamed" };
  } finally {
    // Whatever follows the end event (or a failure) is not read; the connection is released.
    reader.cancel().catch(() => {});
  }
}

/** An event past `MAX_EVENT_CHARS`: a malformed answer (status 200), not retried. */
function oversized(post: StreamPost<z.ZodType>, cause: ParseError): ProviderError {
  return new ProviderError(
    `${post.vendor} 的流事件超过 ${MAX_EVENT_CHARS} 个字符仍未结束，已停止读取`,
    { status: 200, excerpt: "", cause },
  );
}

/** A stream that stopped before its end event: retryable, as a reply that never came. */
function brokenStream(post: StreamPost<z.ZodType>, what: string, cause?: unknown): ProviderError {
  return new ProviderError(
    post.redact(`${post.vendor} 的流式回复在结束事件（${post.endEvent}）之前${what}`),
    { excerpt: "", ...(cause === undefined ? {} : { cause }) },
  );
}

/**
 * An event that is not what the API documents (its `data:` is not JSON, or not the shape):
 * a `provider_error` that is not retried (status 200: the server did answer, wrongly), with
 * a bounded, redacted excerpt of the event's data.
 */
export function malformedEvent(
  vendor: string,
  redact: Redactor,
  event: EventSourceMessage,
  why: string,
): ProviderError {
  const excerpt = excerptOf(event.data, redact);
  const name = event.event === undefined ? "" : `（event: ${redact(event.event).slice(0, 40)}）`;
  return new ProviderError(`${vendor} 的流事件${name}无法解析：${why}。事件摘录：${excerpt}`, {
    status: 200,
    excerpt,
  });
}

/** The `data:` of an event as JSON, or the malformed-event error. */
export function eventJson(vendor: string, redact: Redactor, event: EventSourceMessage): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    throw malformedEvent(vendor, redact, event, "data 不是 JSON");
  }
}

function reasonOf(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === "string") return cause.code;
  return error instanceof Error ? error.message : String(error);
}
