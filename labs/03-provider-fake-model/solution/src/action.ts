/**
 * The three actions a model may propose (lesson 04 validates raw replies into these).
 * A scripted provider returns them as written; a real adapter parses them first.
 */
export type Action =
  | { readonly type: "message"; readonly content: string }
  | {
      readonly type: "tool_call";
      readonly tool: string;
      readonly input: Readonly<Record<string, unknown>>;
      readonly callId?: string;
    }
  | { readonly type: "finish"; readonly summary: string };
