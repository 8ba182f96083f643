import { z } from "zod";
import { DEFAULT_FAKE_USAGE, type FakeReply } from "./fake-script.ts";

/** An OpenAI-shaped error answer. */
export interface ApiError {
  readonly status: number;
  readonly body: unknown;
}

/** `{ error: { message, type, param, code } }`, as the OpenAI API writes its errors. */
export function openaiError(
  status: number,
  message: string,
  extra: { param?: string | null; code?: string | null; type?: string } = {},
): ApiError {
  return {
    status,
    body: {
      error: {
        message,
        type: extra.type ?? "invalid_request_error",
        param: extra.param ?? null,
        code: extra.code ?? null,
      },
    },
  };
}

/** Checks `Authorization: Bearer <key>` as OpenAI does; `undefined` key: any (a local server). */
export function checkOpenAIAuth(
  header: string | undefined,
  apiKey: string | undefined,
): ApiError | undefined {
  if (apiKey === undefined) return undefined;
  if (header === undefined || !header.startsWith("Bearer ")) {
    return openaiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  const given = header.slice("Bearer ".length);
  if (given !== apiKey) {
    const masked = `${given.slice(0, 3)}***${given.slice(-3)}`;
    return openaiError(
      401,
      `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      { code: "invalid_api_key" },
    );
  }
  return undefined;
}

const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const MessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.enum(["system", "developer", "user"]), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullish(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
]);

const RequestSchema = z.object({
  model: z.string(),
  messages: z.array(MessageSchema).min(1),
  tools: z
    .array(
      z.object({
        type: z.literal("function"),
        function: z.object({
          name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .optional(),
  max_tokens: z.int().positive().optional(),
  max_completion_tokens: z.int().positive().optional(),
  temperature: z.number().optional(),
  tool_choice: z.unknown().optional(),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({ include_usage: z.boolean().optional() }).nullish(),
});

const KNOWN_FIELDS = new Set(Object.keys(RequestSchema.shape));

/**
 * Validates a Chat Completions request as the API does and answers with its error
 * shape: unknown fields, a missing model, wrong types (arguments must be a string),
 * a `tool` message that answers no preceding `tool_calls`, and `tool_calls` left
 * without a `tool` message for each id.
 */
export function checkOpenAIRequest(body: unknown): ApiError | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return openaiError(400, "We could not parse the JSON body of your request.");
  }
  for (const key of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(key))
      return openaiError(400, `Unrecognized request argument supplied: ${key}`);
  }
  if (!("model" in body)) return openaiError(400, "you must provide a model parameter");
  const parsed = RequestSchema.safeParse(body, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = (issue?.path ?? [])
      .map((key, index) =>
        typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`,
      )
      .join("");
    if (issue?.code === "invalid_type") {
      const got = describeType(issue.input);
      const expected = `${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
      return openaiError(
        400,
        `Invalid type for '${param}': expected ${expected}, but got ${got} instead.`,
        { param, code: "invalid_type" },
      );
    }
    return openaiError(400, `Invalid value for '${param}': ${issue?.message ?? "invalid"}`, {
      param,
      code: "invalid_value",
    });
  }
  if (parsed.data.stream_options != null && parsed.data.stream !== true) {
    return openaiError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      { param: "stream_options", code: "invalid_value" },
    );
  }
  for (const tool of parsed.data.tools ?? []) {
    const type = tool.function.parameters?.type;
    if (tool.function.parameters !== undefined && type !== "object") {
      return openaiError(
        400,
        `Invalid schema for function '${tool.function.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(type ?? "None")}"'.`,
        { param: "tools", code: "invalid_function_parameters" },
      );
    }
  }
  return checkToolPairing(parsed.data.messages);
}

function checkToolPairing(
  messages: readonly z.infer<typeof MessageSchema>[],
): ApiError | undefined {
  let open: Set<string> | undefined;
  let openAt = -1;
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (open === undefined) {
        return openaiError(
          400,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          { param: `messages.[${index}].role` },
        );
      }
      if (!open.delete(message.tool_call_id)) {
        return openaiError(
          400,
          `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`,
          { param: `messages.[${index}].tool_call_id` },
        );
      }
      continue;
    }
    if (open !== undefined && open.size > 0) return missingResponses(open, openAt);
    open = undefined;
    if (message.role === "assistant" && message.tool_calls !== undefined) {
      open = new Set(message.tool_calls.map((call) => call.id));
      openAt = index;
    }
  }
  if (open !== undefined && open.size > 0) return missingResponses(open, openAt);
  return undefined;
}

function missingResponses(open: Set<string>, index: number): ApiError {
  return openaiError(
    400,
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
    { param: `messages.[${index}].role` },
  );
}

/** A recorded-style `chat.completion` answer. */
export function renderOpenAIReply(options: FakeReply): unknown {
  const usage = options.usage ?? DEFAULT_FAKE_USAGE;
  const toolCalls = options.calls.map((call) => ({
    ...(call.id === null ? {} : { id: call.id ?? options.nextCallId() }),
    type: "function",
    function: {
      name: call.name,
      arguments: "arguments" in call ? call.arguments : JSON.stringify(call.input ?? {}),
    },
  }));
  return {
    id: `chatcmpl-fake${options.sequence}`,
    object: "chat.completion",
    created: 1_700_000_000 + options.sequence,
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: options.text ?? null,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
          refusal: null,
        },
        logprobs: null,
        finish_reason: toolCalls.length === 0 ? "stop" : "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: usage.inputTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    },
    system_fingerprint: "fp_fake",
  };
}

/** "a string", "an object"…, as the API names types in its messages. */
function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

/**
 * The same answer as `renderOpenAIReply`, streamed as the API streams it: `data:` events of
 * `chat.completion.chunk`s (the role first, the text in pieces, each tool call's id and name
 * then its arguments in pieces by `index`, the finish reason), with `includeUsage` a last
 * chunk without choices carrying the usage, then `data: [DONE]`. Each item is one event.
 */
export function renderOpenAIStream(options: FakeReply, includeUsage: boolean): string[] {
  const reply = renderOpenAIReply(options) as {
    id: string;
    created: number;
    model: string;
    choices: [
      {
        message: {
          content: string | null;
          tool_calls?: { id?: string; function: { name: string; arguments: unknown } }[];
        };
        finish_reason: string;
      },
    ];
    usage: unknown;
  };
  const head = { id: reply.id, object: "chat.completion.chunk", created: reply.created };
  const chunk = (choices: unknown[], extra: object = {}) =>
    `data: ${JSON.stringify({ ...head, model: reply.model, system_fingerprint: "fp_fake", choices, ...extra })}\n\n`;
  const delta = (part: object, finish: string | null = null) =>
    chunk([{ index: 0, delta: part, logprobs: null, finish_reason: finish }]);
  const { message, finish_reason } = reply.choices[0];
  const events = [delta({ role: "assistant", content: "", refusal: null })];
  for (const piece of pieces(message.content ?? "")) events.push(delta({ content: piece }));
  (message.tool_calls ?? []).forEach((call, index) => {
    events.push(
      delta({
        tool_calls: [
          {
            index,
            ...(call.id === undefined ? {} : { id: call.id }),
            type: "function",
            function: { name: call.function.name, arguments: "" },
          },
        ],
      }),
    );
    const args = call.function.arguments;
    if (typeof args !== "string") {
      events.push(delta({ tool_calls: [{ index, function: { arguments: args } }] }));
      return;
    }
    for (const piece of pieces(args)) {
      events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  events.push(delta({}, finish_reason));
  if (includeUsage) events.push(chunk([], { usage: reply.usage }));
  events.push("data: [DONE]\n\n");
  return events;
}

/** A text in pieces of a few characters (whole code points), as models stream tokens. */
export function pieces(text: string, size = 4): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let index = 0; index < chars.length; index += size) {
    out.push(chars.slice(index, index + size).join(""));
  }
  return out;
}
