import type { z } from "zod";
import { deepFreeze } from "./deep-freeze.ts";
import type { ReplyReasoning } from "./reasoning.ts";
import type { ToolError } from "./tool-error.ts";

type JsonValue = z.core.util.JSONType;

/** The task, as the first message of every run. */
export interface UserMessage {
  readonly role: "user";
  readonly content: string;
}

/**
 * A finish the runtime did not accept (see `RunExtension.onFinish`): what is missing,
 * shown to the model as a user message on the wire, with stable reason codes.
 */
export interface FinishRejectedMessage {
  readonly role: "user";
  readonly type: "finish_rejected";
  readonly reasons: readonly string[];
  readonly content: string;
}

/** A text reply of the model. */
export interface AssistantTextMessage {
  readonly role: "assistant";
  readonly type: "message";
  readonly content: string;
  /** Set on the first message of a reply that came with reasoning (see `ReplyReasoning`). */
  readonly reasoning?: ReplyReasoning;
}

/** A tool call proposed by the model; `callId` pairs it with its result. */
export interface AssistantToolCallMessage {
  readonly role: "assistant";
  readonly type: "tool_call";
  readonly callId: string;
  readonly tool: string;
  readonly input: Readonly<Record<string, JsonValue>>;
  /** Set on the first message of a reply that came with reasoning (see `ReplyReasoning`). */
  readonly reasoning?: ReplyReasoning;
}

/** The model's proposal that the task is done. */
export interface AssistantFinishMessage {
  readonly role: "assistant";
  readonly type: "finish";
  readonly summary: string;
  /** Set when the finishing reply came with reasoning (see `ReplyReasoning`). */
  readonly reasoning?: ReplyReasoning;
}

/** Every assistant message, discriminated on `type` like the action it records. */
export type AssistantMessage =
  | AssistantTextMessage
  | AssistantToolCallMessage
  | AssistantFinishMessage;

/**
 * A tool that ran and returned a value: the observation the model sees next. Its
 * value is carried as `content`, bounded, redacted text.
 */
export interface ToolSuccessMessage {
  readonly role: "tool";
  readonly callId: string;
  readonly tool: string;
  readonly ok: true;
  readonly content: string;
  readonly truncated: boolean;
  readonly originalLength: number;
}

/**
 * A tool call that produced an error instead of a value: an expected one the model
 * can correct (`invalid_input`, a code the tool returned), or the error that ended
 * the run (`unknown_tool`, `tool_error`, a budget, `cancelled`).
 */
export interface ToolFailureMessage {
  readonly role: "tool";
  readonly callId: string;
  readonly tool: string;
  readonly ok: false;
  /** A stable code and a readable, redacted message (and `issues` for `invalid_input`). */
  readonly error: ToolError;
  /** What the model sees: `{"error":{…},"ok":false}` as bounded, redacted JSON text. */
  readonly content: string;
}

/**
 * The result of one tool call (an observation), paired to its call by `callId`:
 * `{ callId, tool, ok, content | error }`. Every tool call in a history has one,
 * right after it, in the order of the calls.
 */
export type ToolResultMessage = ToolSuccessMessage | ToolFailureMessage;

/** One entry of a run's history. */
export type Message = UserMessage | FinishRejectedMessage | AssistantMessage | ToolResultMessage;

/**
 * The append-only history of a run. Each message is deep-frozen when appended,
 * and `view()` returns a read-only, fixed-length view in O(1): the loop can hand
 * it to a provider without copying, and a later append does not change a view
 * taken earlier. Copying the whole history every step would make a run quadratic.
 */
export interface History {
  append(message: Message): void;
  view(): readonly Message[];
  readonly length: number;
}

/**
 * The history of a run, as the loop writes it: `appendFlat` takes a message whose fields
 * are texts, numbers, booleans or objects already deep-frozen (a tool call's input), and
 * freezes the message alone, without walking it again.
 */
export interface RunHistory extends History {
  appendFlat(message: Message): void;
}

/** Answered `true` by every view, so a recorder can recognise one in O(1). */
const HISTORY_VIEW = Symbol("agent-core.history-view");

/** Creates an empty history. */
export function createHistory(): History {
  return new AppendOnlyHistory();
}

/** Creates the empty history of a run (`runAgent`'s own). */
export function createRunHistory(): RunHistory {
  return new AppendOnlyHistory();
}

/** A class, not a literal: a literal with a getter (`length`) is slow to build each run. */
class AppendOnlyHistory implements RunHistory {
  readonly #entries: Message[] = [];

  append(message: Message): void {
    this.#entries.push(deepFreeze(message));
  }

  appendFlat(message: Message): void {
    // A third of `deepFreeze`'s cost on a fresh message: no key listed, no field tested.
    this.#entries.push(Object.freeze(message));
  }

  view(): readonly Message[] {
    return new Proxy(this.#entries, new ViewHandler(this.#entries.length)) as readonly Message[];
  }

  get length(): number {
    return this.#entries.length;
  }
}

/** True if `value` is a view made by a `History`: immutable, safe to keep by reference. */
export function isHistoryView(value: unknown): value is readonly Message[] {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { [HISTORY_VIEW]?: unknown })[HISTORY_VIEW] === true
  );
}

/**
 * Proxy handler of a view: the first `length` entries of the shared, append-only
 * array, read-only. A class (methods on the prototype) so that taking a view each
 * step allocates one small object, not a set of closures.
 */
class ViewHandler implements ProxyHandler<Message[]> {
  private readonly length: number;

  constructor(length: number) {
    this.length = length;
  }

  get(target: Message[], key: string | symbol, receiver: unknown): unknown {
    if (key === "length") return this.length;
    if (key === HISTORY_VIEW) return true;
    if (typeof key === "string") {
      const index = toIndex(key);
      if (index !== undefined) return index < this.length ? target[index] : undefined;
    }
    return Reflect.get(target, key, receiver);
  }

  has(target: Message[], key: string | symbol): boolean {
    if (typeof key === "string") {
      const index = toIndex(key);
      if (index !== undefined) return index < this.length;
    }
    return Reflect.has(target, key);
  }

  ownKeys(): (string | symbol)[] {
    const keys: (string | symbol)[] = [];
    for (let index = 0; index < this.length; index += 1) keys.push(String(index));
    // The private array has no other own keys (no symbols): "length" completes the list.
    keys.push("length");
    return keys;
  }

  getOwnPropertyDescriptor(
    target: Message[],
    key: string | symbol,
  ): PropertyDescriptor | undefined {
    if (key === "length") {
      // Reported writable because the target's own `length` is: a proxy may not claim
      // otherwise. Writes still fail in the `set` trap.
      return { value: this.length, writable: true, enumerable: false, configurable: false };
    }
    if (typeof key === "string") {
      const index = toIndex(key);
      if (index !== undefined) {
        return index < this.length
          ? { value: target[index], writable: false, enumerable: true, configurable: true }
          : undefined;
      }
    }
    return Reflect.getOwnPropertyDescriptor(target, key);
  }

  set(): boolean {
    return readOnly();
  }

  defineProperty(): boolean {
    return readOnly();
  }

  deleteProperty(): boolean {
    return readOnly();
  }

  setPrototypeOf(): boolean {
    return readOnly();
  }

  preventExtensions(): boolean {
    return readOnly();
  }
}

function readOnly(): never {
  throw new TypeError("history views are read-only");
}

/**
 * The index a property key names, if it is a canonical array index ("0", "12", not
 * "01", "-1" or "1.5"). The length and first-character tests are fast paths for the
 * usual keys (methods, "length"); the round trip through `Number` alone decides.
 */
function toIndex(key: string): number | undefined {
  if (key.length === 0 || key.length > 10) return undefined;
  const code = key.charCodeAt(0);
  if (code < 48) return undefined;
  if (code > 57) return undefined;
  const index = Number(key);
  return Number.isInteger(index) && String(index) === key ? index : undefined;
}
