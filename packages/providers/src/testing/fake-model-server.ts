import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  anthropicError,
  checkAnthropicHeaders,
  checkAnthropicRequest,
  renderAnthropicReply,
} from "./anthropic-fake.ts";
import type { FakeTurn } from "./fake-script.ts";
import {
  type ApiError,
  checkOpenAIAuth,
  checkOpenAIRequest,
  openaiError,
  renderOpenAIReply,
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
}

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
        if (answer.reply === "hang") return;
        send(response, answer.reply.status, answer.reply.body);
      },
      () => send(response, 413, { error: { message: "request too large" } }),
    );
  });

  function handle(
    request: IncomingMessage,
    text: string,
  ): { record: FakeRequest; reply: ApiError | { status: number; body: string } | "hang" } {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const api: FakeApi | "unknown" =
      path === "/v1/chat/completions"
        ? "openai"
        : path === "/v1/messages"
          ? "anthropic"
          : "unknown";
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const base = { api, method: request.method ?? "", path, headers: request.headers, body };
    const reject = (error: ApiError) => ({
      record: { ...base, rejected: error },
      reply: error,
    });
    if (api === "unknown" || request.method !== "POST") {
      return reject(
        openaiError(404, `Invalid URL (${request.method ?? ""} ${path})`, { param: null }),
      );
    }
    const problem =
      api === "openai"
        ? (checkOpenAIAuth(header(request, "authorization"), options.apiKey) ??
          (body === undefined
            ? openaiError(400, "We could not parse the JSON body of your request.")
            : checkOpenAIRequest(body)))
        : (checkAnthropicHeaders(request.headers, options.apiKey) ??
          (body === undefined
            ? anthropicError(
                400,
                "invalid_request_error",
                "There was an error parsing the body of your request",
              )
            : checkAnthropicRequest(body)));
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
    const record = base;
    if ("hang" in turn) return { record, reply: "hang" };
    if ("raw" in turn) return { record, reply: { status: turn.status ?? 200, body: turn.raw } };
    if ("status" in turn) return { record, reply: { status: turn.status, body: turn.body } };
    const render = api === "openai" ? renderOpenAIReply : renderAnthropicReply;
    return {
      record,
      reply: {
        status: 200,
        body: render({
          sequence: served,
          model: String((body as { model?: unknown }).model),
          text: turn.text,
          calls: "calls" in turn ? turn.calls : [],
          usage: turn.usage,
          nextCallId: () => nextCallId(api),
        }),
      },
    };
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

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, {
    "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
  });
  response.end(text);
}
