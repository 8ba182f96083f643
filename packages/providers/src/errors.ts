/**
 * Errors of `@coding-agent/providers`. A `ProviderError` rejects `complete`, and
 * the loop turns it into a run that ends `failed / provider_error` with its message.
 */

/** Base class: sets `name` to the concrete class name and keeps `cause`. */
export class ProvidersError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What went wrong with a model call, as the run reports it. */
export interface ProviderErrorDetails {
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** A bounded, redacted excerpt of the response body ("" when there was none). */
  readonly excerpt: string;
  /**
   * How long the server asked to wait before the next attempt (its `Retry-After` header on
   * a 429 or 503, in seconds or as an HTTP date), in milliseconds.
   */
  readonly retryAfterMs?: number;
  readonly cause?: unknown;
}

/**
 * A model call that failed: the server answered 4xx/5xx, its body was not JSON or
 * not the documented shape, it could not be reached, or its stream broke off before
 * its end event (no `status`: retryable, as no answer) or carried a malformed event. The message names the HTTP
 * status and carries the excerpt, never the key.
 */
export class ProviderError extends ProvidersError {
  readonly status: number | undefined;
  readonly excerpt: string;
  /** The server's `Retry-After` in milliseconds (429/503), read by the run's retry. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: ProviderErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.excerpt = details.excerpt;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** A provider was configured wrongly (no model, a base URL that is not http(s)). */
export class InvalidProviderOptionsError extends ProvidersError {}
