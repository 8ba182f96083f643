/**
 * The script of the loopback fake model server: what it answers, in order, to
 * whichever API is asked. One script serves both APIs, so the same conversation
 * can be replayed through either adapter.
 */

/** A tool call the fake model makes. */
export interface FakeCall {
  readonly name: string;
  readonly input?: Readonly<Record<string, unknown>>;
  /** The call id; made up when left out; `null` sends none (as Ollama does). */
  readonly id?: string | null;
  /**
   * The arguments exactly as sent instead of `input` (OpenAI style only): a text
   * that may not be JSON, or an object (as Ollama sends them).
   */
  readonly arguments?: unknown;
}

/** Tokens a fake reply reports. */
export interface FakeUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * How a streamed answer misbehaves (a request with `stream: true` is answered with
 * server-sent events; these knobs break them on purpose).
 */
export interface FakeStreamKnobs {
  /**
   * Writes the event stream in pieces of this many bytes, each flushed on its own, so a
   * piece ends inside an event's JSON and (with 1, or any size over a Chinese text) inside a
   * UTF-8 character. Default: one write per event.
   */
  readonly chunkBytes?: number;
  /**
   * Stops after this many events, before the end event: `end` closes the response
   * cleanly (a stream that ends early), `destroy` drops the connection (default `end`).
   */
  readonly cutAfter?: { readonly events: number; readonly how?: "end" | "destroy" };
  /** Sends `data: <data>` (say, JSON cut in half) as an event after this many events. */
  readonly malformed?: { readonly afterEvents: number; readonly data: string };
}

/** One answer of the fake server. */
export type FakeTurn =
  /** The model replies with text only (`stop` / `end_turn`). */
  | { readonly text: string; readonly usage?: FakeUsage; readonly stream?: FakeStreamKnobs }
  /** The model asks for tools, optionally with text (`tool_calls` / `tool_use`). */
  | {
      readonly calls: readonly FakeCall[];
      readonly text?: string;
      readonly usage?: FakeUsage;
      readonly stream?: FakeStreamKnobs;
    }
  /**
   * The server answers this status and JSON body as it is (an API error, a bad shape);
   * `retryAfter` adds a `Retry-After` header: seconds, or (`as: "date"`) the HTTP date that
   * many seconds after the response's own `Date` header.
   */
  | {
      readonly status: number;
      readonly body: unknown;
      readonly retryAfter?: { readonly seconds: number; readonly as?: "seconds" | "date" };
    }
  /** The server answers a body that is not JSON. */
  | { readonly raw: string; readonly status?: number }
  /**
   * The server answers this event stream as it is (`text/event-stream`), say one recorded
   * from the real API, optionally in `chunkBytes` pieces.
   */
  | { readonly rawSse: string; readonly chunkBytes?: number }
  /** The server never answers (until the client gives up). */
  | { readonly hang: true };

/** The usage a reply reports when its turn gives none. */
export const DEFAULT_FAKE_USAGE: FakeUsage = { inputTokens: 12, outputTokens: 5 };

/** What a reply renderer needs to write one API's answer to a scripted turn. */
export interface FakeReply {
  /** 1-based number of the served turn (ids and timestamps derive from it). */
  readonly sequence: number;
  /** The model the request named, echoed back as the APIs do. */
  readonly model: string;
  readonly text: string | undefined;
  readonly calls: readonly FakeCall[];
  readonly usage: FakeUsage | undefined;
  /** A fresh id in the API's style, for a call the script gave none. */
  readonly nextCallId: () => string;
}
