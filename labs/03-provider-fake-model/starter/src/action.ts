/**
 * 模型可以提出的三种动作（第 04 课把原始回复校验成它们）。脚本化的 Provider 原样返回；真实的适配器
 * 先解析。
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
