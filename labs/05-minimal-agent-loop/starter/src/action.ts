/**
 * 模型可以提出的三种动作（第 04 课的协议）。动作到达循环时，Provider 适配器已经解析过原始回复，所以
 * 在循环内部这个类型是可信的。
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
