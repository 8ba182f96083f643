/**
 * The three actions a model may propose (lesson 04's protocol). By the time an action
 * reaches the loop, the provider adapter has already parsed the raw reply, so inside
 * the loop the type is trusted.
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
