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

/** One answer of the fake server. */
export type FakeTurn =
  /** The model replies with text only (`stop` / `end_turn`). */
  | { readonly text: string; readonly usage?: FakeUsage }
  /** The model asks for tools, optionally with text (`tool_calls` / `tool_use`). */
  | { readonly calls: readonly FakeCall[]; readonly text?: string; readonly usage?: FakeUsage }
  /** The server answers this status and JSON body as it is (an API error, a bad shape). */
  | { readonly status: number; readonly body: unknown }
  /** The server answers a body that is not JSON. */
  | { readonly raw: string; readonly status?: number }
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
