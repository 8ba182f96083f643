import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  anthropicError,
  checkAnthropicHeaders,
  checkAnthropicRequest,
  renderAnthropicReply,
  renderAnthropicStream,
} from "./anthropic-fake.ts";
import type { FakeStreamKnobs, FakeTurn } from "./fake-script.ts";
import {
  type ApiError,
  checkOpenAIAuth,
  checkOpenAIRequest,
  openaiError,
  renderOpenAIReply,
  renderOpenAIStream,
} from "./openai-fake.ts";

/** Which API a request spoke. */
export type FakeApi = "openai" | "anthropic";

/** One request the server received, answered or rejected. */
export interface FakeRequest {
  readonly api: FakeApi | "unknown";
  readonly method: string;
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  readonly body: unknown;
  /** Set when the server rejected the request as the real API would: status and body. */
  readonly rejected?: ApiError;
}

/** Options of `startFakeModelServer`. */
export interface FakeModelServerOptions {
  /** What the fake model answers, in order, whichever API asks. */
  readonly script: readonly FakeTurn[];
  /** The key both APIs require; leave out to accept any (as a local server does). */
  readonly apiKey?: string;
  /**
   * Whether a request with `stream: true` is answered with server-sent events (default
   * true); false plays a server without SSE, which answers JSON whatever is asked.
   */
  readonly sse?: boolean;
}

/** A streamed answer: its events, in order, and how they misbehave. */
interface SseReply {
  readonly sse: readonly string[];
  readonly knobs: FakeStreamKnobs;
}

type Reply =
  | ApiError
  | { readonly status: number; readonly body: string; readonly headers?: Record<string, string> }
  | { readonly status: number; readonly body: unknown; readonly headers: Record<string, string> }
  | SseReply
  | "hang";

/** A running loopback server that speaks both model APIs. */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`: the Anthropic-style base URL. */
  readonly url: string;
  /** `<url>/v1`: the OpenAI-style base URL. */
  readonly openaiBaseUrl: string;
  /** `<url>`: the Anthropic-style base URL (requests go to `<url>/v1/messages`). */
  readonly anthropicBaseUrl: string;
  /** Every request, in order. */
  readonly requests: readonly FakeRequest[];
  /** The requests it rejected (a correct adapter makes none, unless a test wants it). */
  readonly rejected: readonly FakeRequest[];
  /** Script turns not yet served. */
  readonly remaining: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Starts a `node:http` server on 127.0.0.1 (a free port) that behaves like the
 * OpenAI Chat Completions (`POST /v1/chat/completions`) and Anthropic Messages
 * (`POST /v1/messages`) APIs as documented: it checks the auth header, the body
 * and the pairing of tool calls and results, rejects what the real APIs reject
 * with their error shapes, and otherwise answers the next scripted turn as a
 * recorded-style response (ids, usage, `finish_reason` / `stop_reason`). A request
 * past the end of the script is answered 500, naming the script, never a guess.
 */
export async function startFakeModelServer(
  options: FakeModelServerOptions,
): Promise<FakeModelServer> {
  const script = [...options.script];
  const requests: FakeRequest[] = [];
  let served = 0;
  let callIds = 0;
  const nextCallId = (api: FakeApi) => {
    callIds += 1;
    const suffix = String(callIds).padStart(4, "0");
    return api === "openai" ? `call_fake${suffix}` : `toolu_fake${suffix}`;
  };

  const server = createServer((request, response) => {
    readBody(request).then(
      (text) => {
        const answer = handle(request, text);
        requests.push(answer.record);
        respond(response, answer.reply);
      },
      () => send(response, 413, { error: { message: "request too large" } }),
    );
  });

  function handle(request: IncomingMessage, text: string): { record: FakeRequest; reply: Reply } {
    const base = describeRequest(request, text);
    const { api, body } = base;
    const reject = (error: ApiError) => ({
      record: { ...base, rejected: error },
      reply: error,
    });
    if (api === "unknown" || request.method !== "POST") {
      return reject(
        openaiError(404, `Invalid URL (${request.method ?? ""} ${base.path})`, { param: null }),
      );
    }
    const problem = checkRequest(api, request, body, options.apiKey);
    if (problem !== undefined) return reject(problem);

    const turn = script[served];
    if (turn === undefined) {
      const message = `fake model server: script exhausted (${script.length} turns, request ${served + 1})`;
      return {
        record: base,
        reply:
          api === "openai"
            ? openaiError(500, message, { type: "server_error" })
            : anthropicError(500, "api_error", message),
      };
    }
    served += 1;
    const reply = answerTurn(turn, {
      api,
      body,
      sequence: served,
      sse: options.sse !== false,
      nextCallId: () => nextCallId(api),
    });
    return { record: base, reply };
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    get requests() {
      return requests as readonly FakeRequest[];
    },
    get rejected() {
      return requests.filter((request) => request.rejected !== undefined);
    },
    get remaining() {
      return script.length - served;
    },
    close() {
      // A hanging answer keeps its socket open; close it instead of waiting forever.
      server.closeAllConnections();
      return new Promise((resolve, reject) =>
        server.close((error) => (error === undefined ? resolve() : reject(error))),
      );
    },
  };
}

/** The record of a request as received: which API its path names, and its body parsed. */
function describeRequest(request: IncomingMessage, text: string): FakeRequest {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  const api: FakeApi | "unknown" =
    path === "/v1/chat/completions" ? "openai" : path === "/v1/messages" ? "anthropic" : "unknown";
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { api, method: request.method ?? "", path, headers: request.headers, body };
}

/**
 * What the real API would reject a request for, in its error shape: its auth header, a
 * body that is not JSON, then the body's contents. Undefined when it is a valid request.
 */
function checkRequest(
  api: FakeApi,
  request: IncomingMessage,
  body: unknown,
  apiKey: string | undefined,
): ApiError | undefined {
  if (api === "openai") {
    return (
      checkOpenAIAuth(header(request, "authorization"), apiKey) ??
      (body === undefined
        ? openaiError(400, "We could not parse the JSON body of your request.")
        : checkOpenAIRequest(body))
    );
  }
  return (
    checkAnthropicHeaders(request.headers, apiKey) ??
    (body === undefined
      ? anthropicError(
          400,
          "invalid_request_error",
          "There was an error parsing the body of your request",
        )
      : checkAnthropicRequest(body))
  );
}

/** A valid request that a scripted turn answers, as `answerTurn` needs it. */
interface TurnRequest {
  readonly api: FakeApi;
  readonly body: unknown;
  /** Which turn of the script this is, from 1. */
  readonly sequence: number;
  /** Whether the server answers `stream: true` with server-sent events. */
  readonly sse: boolean;
  /** The id of the next tool call the server makes up. */
  readonly nextCallId: () => string;
}

/**
 * The reply one scripted turn makes: a hang, raw events or a raw body as scripted, a
 * scripted error status, or the turn rendered in the asking API's shape (streamed when the
 * request asked for a stream and the server speaks SSE).
 */
function answerTurn(turn: FakeTurn, asked: TurnRequest): Reply {
  const { api, body } = asked;
  if ("hang" in turn) return "hang";
  if ("rawSse" in turn) {
    const knobs = turn.chunkBytes === undefined ? {} : { chunkBytes: turn.chunkBytes };
    return { sse: [turn.rawSse], knobs };
  }
  if ("raw" in turn) return { status: turn.status ?? 200, body: turn.raw };
  if ("status" in turn)
    return { status: turn.status, body: turn.body, headers: retryAfterOf(turn) };
  const reply = {
    sequence: asked.sequence,
    model: String((body as { model?: unknown }).model),
    text: turn.text,
    calls: "calls" in turn ? turn.calls : [],
    usage: turn.usage,
    nextCallId: asked.nextCallId,
  };
  const options = body as { stream?: unknown; stream_options?: { include_usage?: unknown } };
  if (options.stream === true && asked.sse) {
    const sse =
      api === "openai"
        ? renderOpenAIStream(reply, options.stream_options?.include_usage === true)
        : renderAnthropicStream(reply);
    return { sse, knobs: turn.stream ?? {} };
  }
  const render = api === "openai" ? renderOpenAIReply : renderAnthropicReply;
  return { status: 200, body: render(reply) };
}

/** Writes `reply`: nothing for a hang (the socket stays open), events, or a whole body. */
function respond(response: ServerResponse, reply: Reply): void {
  if (reply === "hang") return;
  if ("sse" in reply) {
    streamEvents(response, reply).catch(() => response.destroy());
    return;
  }
  send(response, reply.status, reply.body, "headers" in reply ? reply.headers : undefined);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("too large"));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    ...headers,
  });
  response.end(text);
}

/** The `Date` and `Retry-After` headers of a scripted error answer (none without `retryAfter`). */
function retryAfterOf(
  turn: Extract<FakeTurn, { status: number; body: unknown }>,
): Record<string, string> {
  if (turn.retryAfter === undefined) return {};
  const { seconds } = turn.retryAfter;
  if (turn.retryAfter.as !== "date") return { "retry-after": String(seconds) };
  // Whole seconds, as HTTP dates are: the wait is exactly `seconds` after the `Date` header.
  const now = Math.floor(Date.now() / 1000) * 1000;
  return {
    date: new Date(now).toUTCString(),
    "retry-after": new Date(now + seconds * 1000).toUTCString(),
  };
}

/**
 * Writes a streamed answer as `text/event-stream`, event by event or in `chunkBytes`
 * pieces (each its own write, a tick apart, so the client reads them apart), and breaks
 * it as the knobs say: a malformed event slipped in, a cut before the end event.
 */
async function streamEvents(response: ServerResponse, reply: SseReply): Promise<void> {
  const { knobs } = reply;
  const events = [...reply.sse];
  if (knobs.malformed !== undefined) {
    events.splice(knobs.malformed.afterEvents, 0, `data: ${knobs.malformed.data}\n\n`);
  }
  const cut = knobs.cutAfter;
  const sent =
    cut === undefined ? events : events.slice(0, Math.min(cut.events, events.length - 1));
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  response.flushHeaders();
  const bytes = Buffer.from(sent.join(""), "utf8");
  const size = knobs.chunkBytes;
  const parts: Buffer[] = [];
  if (size === undefined || size < 1) for (const event of sent) parts.push(Buffer.from(event));
  else for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  for (const part of parts) {
    if (response.destroyed) return;
    response.write(part);
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (cut?.how === "destroy") response.socket?.destroy();
  else response.end();
}
