import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback imitation of one reasoning-model vendor: it answers scripted replies (as JSON,
 * or as server-sent events when the request asks to stream) and applies the vendor's
 * documented rules to every request strictly, answering 400 with the vendor's own message
 * when one is broken. The rules are the vendor's; each test cites where it is written.
 */

/** What the imitation sent as reply `index` (0-based), and the request being checked. */
export interface RuleInput {
  readonly body: Record<string, unknown>;
  /** The assistant messages of the request, in order: message `k` stands for reply `k`. */
  readonly assistants: readonly Record<string, unknown>[];
  /** The replies sent so far, as their assistant messages / Anthropic messages. */
  readonly sent: readonly Record<string, unknown>[];
}

/** A rule: undefined when the request keeps it, else the vendor's 400 message. */
export type Rule = (input: RuleInput) => string | undefined;

export interface ImitationOptions {
  readonly wire: "openai" | "anthropic";
  /**
   * Each reply: for the OpenAI wire the assistant `message` of the choice; for the Anthropic
   * wire the `content` blocks. Usage is added.
   */
  readonly replies: readonly Record<string, unknown>[];
  readonly rules: readonly Rule[];
  /** The usage object each reply carries (the wire's own shape). */
  readonly usage?: Record<string, unknown>;
  /**
   * Called with each request's index (0-based) before it is answered; answering `"drop"`
   * leaves the request unanswered and uncounted (a test that kills the client mid-call).
   */
  readonly onRequest?: (index: number) => "drop" | undefined;
}

export interface Imitation {
  readonly baseUrl: string;
  /** Every request body, in order, answered or rejected. */
  readonly bodies: Record<string, unknown>[];
  /** The 400 messages given, in order. */
  readonly rejections: string[];
  close(): Promise<void>;
}

/** The assistant messages of the imitation's `index`-th request (0-based), in order. */
export function assistantsOf(imitation: Imitation, index: number): Record<string, unknown>[] {
  const messages = imitation.bodies[index]?.messages;
  if (!Array.isArray(messages)) throw new Error(`imitation: no request ${index}`);
  return (messages as Record<string, unknown>[]).filter((message) => message.role === "assistant");
}

export async function startImitation(options: ImitationOptions): Promise<Imitation> {
  const bodies: Record<string, unknown>[] = [];
  const rejections: string[] = [];
  const sent: Record<string, unknown>[] = [];
  const server = createServer(async (request, response) => {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    bodies.push(body);
    if (options.onRequest?.(bodies.length - 1) === "drop") return;
    const messages = (body.messages ?? []) as Record<string, unknown>[];
    const assistants = messages.filter((message) => message.role === "assistant");
    for (const rule of options.rules) {
      const broken = rule({ body, assistants, sent });
      if (broken === undefined) continue;
      rejections.push(broken);
      response.writeHead(400, { "content-type": "application/json" });
      const error =
        options.wire === "openai"
          ? { error: { message: broken, type: "invalid_request_error", code: "invalid_request" } }
          : { type: "error", error: { type: "invalid_request_error", message: broken } };
      response.end(JSON.stringify(error));
      return;
    }
    const reply = options.replies[sent.length];
    if (reply === undefined) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "imitation: script used up" } }));
      return;
    }
    sent.push(reply);
    const streamed = body.stream === true;
    if (options.wire === "openai") {
      const usage = options.usage ?? { prompt_tokens: 20, completion_tokens: 10 };
      if (!streamed) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            id: `chatcmpl-${sent.length}`,
            object: "chat.completion",
            model: body.model,
            choices: [
              { index: 0, message: { role: "assistant", ...reply }, finish_reason: "stop" },
            ],
            usage,
          }),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const chunk of chatChunks(reply, usage))
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      response.end("data: [DONE]\n\n");
      return;
    }
    const usage = options.usage ?? { input_tokens: 20, output_tokens: 10 };
    const message = {
      id: `msg_${sent.length}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content: reply.content,
      stop_reason: "end_turn",
      usage,
    };
    if (!streamed) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(message));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const [event, data] of messageEvents(message)) {
      response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    }
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${options.wire === "openai" ? "/v1" : ""}`,
    bodies,
    rejections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

/** Splits a text into pieces of at most 4 characters, as a stream delivers it. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += 4) out.push(text.slice(at, at + 4));
  return out;
}

/**
 * An assistant message as `chat.completion.chunk`s: the reasoning first (in pieces, each
 * `reasoning_details` block in pieces under its `index`), then the content, then each tool
 * call (its first delta with id, name and `extra_content`, then its arguments in pieces),
 * then the usage.
 */
function chatChunks(
  message: Record<string, unknown>,
  usage: Record<string, unknown>,
): Record<string, unknown>[] {
  const deltas: Record<string, unknown>[] = [{ role: "assistant" }];
  for (const field of ["reasoning_content", "reasoning"] as const) {
    const text = message[field];
    if (typeof text === "string") for (const piece of pieces(text)) deltas.push({ [field]: piece });
  }
  const details = (message.reasoning_details ?? []) as Record<string, unknown>[];
  details.forEach((detail, index) => {
    const { text, ...rest } = detail;
    if (typeof text !== "string") {
      deltas.push({ reasoning_details: [{ ...detail, index }] });
      return;
    }
    for (const [at, piece] of pieces(text).entries()) {
      deltas.push({
        reasoning_details: [at === 0 ? { ...rest, text: piece, index } : { text: piece, index }],
      });
    }
  });
  if (message.extra_content !== undefined) deltas.push({ extra_content: message.extra_content });
  if (typeof message.content === "string") {
    for (const piece of pieces(message.content)) deltas.push({ content: piece });
  }
  const calls = (message.tool_calls ?? []) as Record<string, unknown>[];
  calls.forEach((call, index) => {
    const fn = call.function as { name: string; arguments: string };
    deltas.push({
      tool_calls: [
        {
          index,
          id: call.id,
          type: "function",
          function: { name: fn.name, arguments: "" },
          ...(call.extra_content === undefined ? {} : { extra_content: call.extra_content }),
        },
      ],
    });
    for (const piece of pieces(fn.arguments)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  return [
    ...deltas.map((delta) => ({
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: null }],
    })),
    { object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { object: "chat.completion.chunk", choices: [], usage },
  ];
}

/** A Messages API message as its stream events, thinking and signature deltas included. */
function messageEvents(message: Record<string, unknown>): [string, unknown][] {
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: { ...message, content: [] } }],
  ];
  const blocks = message.content as Record<string, unknown>[];
  blocks.forEach((block, index) => {
    const delta = (payload: Record<string, unknown>) =>
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: payload }]);
    const start = (content: Record<string, unknown>) =>
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: content },
      ]);
    if (block.type === "thinking") {
      start({ type: "thinking", thinking: "", signature: "" });
      for (const piece of pieces(String(block.thinking))) {
        delta({ type: "thinking_delta", thinking: piece });
      }
      delta({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "text") {
      start({ type: "text", text: "" });
      for (const piece of pieces(String(block.text))) delta({ type: "text_delta", text: piece });
    } else if (block.type === "tool_use") {
      start({ type: "tool_use", id: block.id, name: block.name, input: {} });
      delta({ type: "input_json_delta", partial_json: JSON.stringify(block.input) });
    } else {
      start(block);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: message.usage },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events;
}
