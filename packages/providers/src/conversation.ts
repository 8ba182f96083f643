import type { Message, ReplyReasoning, ToolInput } from "@coding-agent/agent-core";

/** One tool call of an assistant turn. */
export interface TurnCall {
  readonly callId: string;
  readonly tool: string;
  readonly input: ToolInput;
}

/** One tool result, in the order of the calls. */
export interface TurnResult {
  readonly callId: string;
  readonly tool: string;
  readonly ok: boolean;
  /** The observation text the model sees (a value, or the `{ ok: false, error }` JSON). */
  readonly content: string;
}

/**
 * A run's history regrouped the way chat APIs see a conversation: the task, then
 * assistant turns (text and the tool calls of one reply) each followed by the
 * results of their calls.
 */
export type Turn =
  | { readonly kind: "user"; readonly text: string }
  | {
      readonly kind: "assistant";
      readonly text: string;
      readonly calls: readonly TurnCall[];
      /** The reasoning that came with this reply, to be handed back as its vendor requires. */
      readonly reasoning?: ReplyReasoning;
    }
  | { readonly kind: "results"; readonly results: readonly TurnResult[] };

/**
 * Groups a history into turns. The loop writes one reply as its text (if any),
 * then all its tool calls, then their results, so consecutive calls belong to one
 * reply, and a reply's text opens its turn.
 */
export function toTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    switch (message.role) {
      case "user":
        turns.push({ kind: "user", text: message.content });
        break;
      case "assistant": {
        // Reasoning rides on the first message of a reply: such a message opens a new turn.
        const reasoning = message.reasoning === undefined ? {} : { reasoning: message.reasoning };
        const opensReply = message.reasoning !== undefined;
        if (message.type === "tool_call") {
          const call = { callId: message.callId, tool: message.tool, input: message.input };
          if (last?.kind === "assistant" && !opensReply) {
            turns[turns.length - 1] = { ...last, calls: [...last.calls, call] };
          } else {
            turns.push({ kind: "assistant", text: "", calls: [call], ...reasoning });
          }
          break;
        }
        const text = message.type === "message" ? message.content : message.summary;
        if (last?.kind === "assistant" && last.calls.length === 0 && !opensReply) {
          turns[turns.length - 1] = { ...last, text: joinText(last.text, text) };
        } else {
          turns.push({ kind: "assistant", text, calls: [], ...reasoning });
        }
        break;
      }
      case "tool": {
        // Both outcomes carry `content`: the value, or the `{ ok: false, error }` JSON.
        const result = {
          callId: message.callId,
          tool: message.tool,
          ok: message.ok,
          content: message.content,
        };
        if (last?.kind === "results") {
          turns[turns.length - 1] = { ...last, results: [...last.results, result] };
        } else {
          turns.push({ kind: "results", results: [result] });
        }
        break;
      }
      default: {
        const unreachable: never = message;
        throw new TypeError(`unhandled message ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return turns;
}

function joinText(first: string, second: string): string {
  return first === "" ? second : `${first}\n\n${second}`;
}
