import { z } from "zod";

/** The model speaks (to the user, or thinking aloud); no side effect. */
export const MessageActionSchema = z.strictObject({
  type: z.literal("message"),
  content: z.string(),
});

/** The model asks the runtime to run a tool by name, with a JSON object as input. */
export const ToolCallActionSchema = z.strictObject({
  type: z.literal("tool_call"),
  tool: z.string().min(1),
  input: z.record(z.string(), z.json()),
  callId: z.string().min(1).optional(),
});

/** The model proposes that the task is done; the runtime decides whether it is. */
export const FinishActionSchema = z.strictObject({
  type: z.literal("finish"),
  summary: z.string(),
});

/** The whole protocol: one of three shapes, told apart by `type`. */
export const ActionSchema = z.discriminatedUnion("type", [
  MessageActionSchema,
  ToolCallActionSchema,
  FinishActionSchema,
]);

/** A model reply that passed validation; code inside the runtime trusts this type. */
export type Action = z.infer<typeof ActionSchema>;

/** What `parseAction` answers: the action, or a Chinese reason the reply was rejected. */
export type ActionParseResult =
  | { readonly ok: true; readonly action: Action }
  | { readonly ok: false; readonly reason: string };

/** The values `type` may take, in the order reasons list them. */
export const ACTION_TYPES = ["message", "tool_call", "finish"] as const;

/**
 * Turns an unknown model reply into an action, or a reason it is not one. Never throws:
 * a malformed reply is an ordinary outcome the loop must be able to report.
 *
 * @param reply the reply as the model produced it (already JSON-decoded, still untrusted)
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
  // TODO(lab-04): 这里只看了 type 就把回复强转成 Action：tool_call 的 input 可能是数组，
  // 回复还可能夹带协议外的字段。用 ActionSchema.safeParse 校验整份回复（第二个参数传
  // { error: z.locales.zhCN().localeError } 得到中文信息），失败时用 describeIssues 写出原因。
  return { ok: true, action: reply as Action };
  // #endregion exercise
}

/** Joins validation issues into one reason, each prefixed by the field it is about. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.path.length === 0 ? "回复" : issue.path.map(String).join(".");
      return `${field}：${issue.message}`;
    })
    .join("；");
}

/** A short, readable description of any value, for reasons shown to people. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "数组";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return typeof value === "object" ? "对象" : `${typeof value} ${String(value)}`;
}
