import { z } from "zod";

/** 模型说话（对用户说，或者自言自语）；没有副作用。 */
export const MessageActionSchema = z.strictObject({
  type: z.literal("message"),
  content: z.string(),
});

/** 模型请求 Runtime 按名字运行一个工具，输入是一个 JSON 对象。 */
export const ToolCallActionSchema = z.strictObject({
  type: z.literal("tool_call"),
  tool: z.string().min(1),
  input: z.record(z.string(), z.json()),
  callId: z.string().min(1).optional(),
});

/** 模型提出任务已经完成；是否完成由 Runtime 决定。 */
export const FinishActionSchema = z.strictObject({
  type: z.literal("finish"),
  summary: z.string(),
});

/** 整个协议：三种形状之一，用 `type` 区分。 */
export const ActionSchema = z.discriminatedUnion("type", [
  MessageActionSchema,
  ToolCallActionSchema,
  FinishActionSchema,
]);

/** 通过校验的模型回复；Runtime 内部的代码信任这个类型。 */
export type Action = z.infer<typeof ActionSchema>;

/** `parseAction` 的回答：动作，或者回复被拒绝的中文原因。 */
export type ActionParseResult =
  | { readonly ok: true; readonly action: Action }
  | { readonly ok: false; readonly reason: string };

/** `type` 可以取的值，按原因里列出的顺序。 */
export const ACTION_TYPES = ["message", "tool_call", "finish"] as const;

/**
 * 把来历不明的模型回复变成动作，或者说明它为什么不是动作。从不抛出：格式错误的回复是循环必须能够报
 * 告的普通结果。
 * @param reply 模型给出的回复（已经 JSON 解码，仍然不可信）
 */
export function parseAction(reply: unknown): ActionParseResult {
  if (typeof reply !== "object" || reply === null || Array.isArray(reply)) {
    return { ok: false, reason: `模型回复必须是对象，实际是 ${describeValue(reply)}` };
  }
  const type: unknown = (reply as { type?: unknown }).type;
  if (!ACTION_TYPES.some((known) => known === type)) {
    return {
      ok: false,
      reason: `未知的动作类型 ${describeValue(type)}，可选：${ACTION_TYPES.join("、")}`,
    };
  }
  // #region exercise
  // 解答：type 只说明“想做什么”，其余字段仍要整体校验；协议外的字段也一并拒绝，并写明原因。
  const parsed = ActionSchema.safeParse(reply, { error: z.locales.zhCN().localeError });
  if (parsed.success) return { ok: true, action: parsed.data };
  return { ok: false, reason: `${String(type)} 动作无效：${describeIssues(parsed.error.issues)}` };
  // #endregion exercise
}

/** 把校验问题合成一条原因，每条前面写上它所说的字段。 */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.length === 0 ? "回复" : issue.path.map(String).join(".");
      return `${field}：${issue.message}`;
    })
    .join("；");
}

/** 任意值的简短、可读的描述，用在给人看的原因里。 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "数组";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return typeof value === "object" ? "对象" : `${typeof value} ${String(value)}`;
}
