import { z } from "zod";
import { DEFAULT_FAKE_USAGE, type FakeReply } from "./fake-script.ts";
import { type ApiError, pieces } from "./openai-fake.ts";

/** `{ type: "error", error: { type, message } }`, as the Anthropic API writes its errors. */
export function anthropicError(status: number, type: string, message: string): ApiError {
  return { status, body: { type: "error", error: { type, message } } };
}

const invalid = (message: string) => anthropicError(400, "invalid_request_error", message);

/**
 * Checks the headers as Anthropic does: `x-api-key` (an OpenAI-style `Authorization`
 * header does not count) and `anthropic-version`. `undefined` key: any key.
 */
export function checkAnthropicHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  apiKey: string | undefined,
): ApiError | undefined {
  const key = headers["x-api-key"];
  if (apiKey !== undefined) {
    if (!key) return anthropicError(401, "authentication_error", "x-api-key header is required");
    if (key !== apiKey) return anthropicError(401, "authentication_error", "invalid x-api-key");
  }
  if (!headers["anthropic-version"]) return invalid("anthropic-version: header is required");
  return undefined;
}

const BlockSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text"), text: z.string() }),
  z.strictObject({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.unknown())]).optional(),
    is_error: z.boolean().optional(),
  }),
]);

const MessageSchema = z.strictObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(BlockSchema)]),
});

const RequestSchema = z.strictObject({
  model: z.string(),
  max_tokens: z.int().min(1),
  messages: z.array(MessageSchema),
  system: z.string().optional(),
  tools: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
        description: z.string().optional(),
        input_schema: z.looseObject({ type: z.literal("object") }),
      }),
    )
    .optional(),
  temperature: z.number().optional(),
  tool_choice: z.unknown().optional(),
  stop_sequences: z.array(z.string()).optional(),
  metadata: z.unknown().optional(),
  stream: z.boolean().optional(),
});

type Block = z.infer<typeof BlockSchema>;

/**
 * Validates a Messages request as the API does and answers with its error shape:
 * missing `max_tokens` ("Field required"), unknown fields ("Extra inputs are not
 * permitted"), a first message that is not `user`, empty text, a `tool_use` not
 * answered in the next message, a `tool_result` whose id has no `tool_use` just before.
 */
export function checkAnthropicRequest(body: unknown): ApiError | undefined {
  const parsed = RequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue === undefined) return invalid("invalid request");
    const path = issue.path.join(".");
    if (issue.code === "unrecognized_keys") {
      const where = path === "" ? "" : `${path}.`;
      return invalid(`${where}${issue.keys[0] ?? ""}: Extra inputs are not permitted`);
    }
    if (issue.code === "invalid_type" && issue.input === undefined)
      return invalid(`${path}: Field required`);
    return invalid(`${path}: ${issue.message}`);
  }
  const messages = parsed.data.messages;
  if (messages[0]?.role !== "user")
    return invalid('messages: first message must use the "user" role');
  for (const [index, message] of messages.entries()) {
    const blocks = typeof message.content === "string" ? [] : message.content;
    const last = index === messages.length - 1;
    const empty =
      message.content.length === 0 || blocks.some((b) => b.type === "text" && b.text === "");
    if (empty && !(last && message.role === "assistant")) {
      return invalid(
        `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    const uses = toolUseIds(blocks);
    if (uses.length > 0) {
      const next = messages[index + 1];
      const answered = new Set(
        next?.role === "user" && typeof next.content !== "string"
          ? next.content.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id] : []))
          : [],
      );
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return invalid(
          `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
      }
    }
    const previous = messages[index - 1];
    const known = new Set(
      previous?.role === "assistant" && typeof previous.content !== "string"
        ? toolUseIds(previous.content)
        : [],
    );
    for (const [position, block] of blocks.entries()) {
      if (block.type !== "tool_result") continue;
      if (message.role !== "user" || !known.has(block.tool_use_id)) {
        return invalid(
          `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
  }
  return undefined;
}

function toolUseIds(blocks: readonly Block[]): string[] {
  return blocks.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
}

/** A recorded-style `message` answer. */
export function renderAnthropicReply(options: FakeReply): unknown {
  const usage = options.usage ?? DEFAULT_FAKE_USAGE;
  const content: unknown[] =
    options.text === undefined || options.text === "" ? [] : [{ type: "text", text: options.text }];
  for (const call of options.calls) {
    content.push({
      type: "tool_use",
      id: call.id ?? options.nextCallId(),
      name: call.name,
      input: "arguments" in call ? call.arguments : (call.input ?? {}),
    });
  }
  return {
    id: `msg_fake${options.sequence}`,
    type: "message",
    role: "assistant",
    model: options.model,
    content,
    stop_reason: options.calls.length === 0 ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  };
}

/**
 * The same answer as `renderAnthropicReply`, streamed as the API streams it: `message_start`
 * (input usage, one output token), a `ping`, per block `content_block_start`, its
 * `text_delta`s or `input_json_delta`s (the input's JSON in pieces) and `content_block_stop`,
 * `message_delta` (stop reason, output usage) and `message_stop`. Each item is one event.
 */
export function renderAnthropicStream(options: FakeReply): string[] {
  const reply = renderAnthropicReply(options) as {
    id: string;
    model: string;
    content: ({ type: "text"; text: string } | { type: "tool_use"; input: unknown })[];
    stop_reason: string;
    usage: { input_tokens: number; output_tokens: number };
  };
  const event = (type: string, data: object) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event("message_start", {
      message: {
        id: reply.id,
        type: "message",
        role: "assistant",
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: reply.usage.input_tokens, output_tokens: 1 },
      },
    }),
    event("ping", {}),
  ];
  reply.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(
        event("content_block_start", { index, content_block: { type: "text", text: "" } }),
      );
      for (const text of pieces(block.text)) {
        events.push(event("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
    } else {
      events.push(event("content_block_start", { index, content_block: { ...block, input: {} } }));
      for (const partial_json of pieces(JSON.stringify(block.input), 6)) {
        events.push(
          event("content_block_delta", {
            index,
            delta: { type: "input_json_delta", partial_json },
          }),
        );
      }
    }
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: reply.stop_reason, stop_sequence: null },
      usage: { output_tokens: reply.usage.output_tokens },
    }),
    event("message_stop", {}),
  );
  return events;
}
