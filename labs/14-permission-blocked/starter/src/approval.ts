/**
 * 第 14 课：需要许可的调用，先问再做；拒绝就以 blocked 结束，调用从未执行。
 *
 * `withApproval(tool, options)` 给一个工具加上许可检查。Runtime 在执行工具之前
 * 先调用它的 `authorize`：返回 `blockRun(原因)`，运行以 `blocked` 结束，这个调用
 * 不执行、不计入 toolCalls、Trace 里也没有它的 tool_started；返回 undefined，调用照常执行。
 *
 * 询问本身（超时、异常、看不懂的应答都按拒绝处理）用总项目的 `requestApproval`；
 * 你只写拿到应答之后怎么办。
 */
import {
  type Authorization,
  blockRun,
  type Tool,
  type ToolInput,
  toolError,
} from "@coding-agent/agent-core";
import {
  type ApprovalMode,
  type ApprovalRequest,
  type Approver,
  denyAll,
  requestApproval,
} from "@coding-agent/tools";

export interface ApprovalOptions {
  /** ask：问 approver；deny：不问，直接 blocked；auto：不问，回答 not_allowed，运行继续。 */
  readonly approval: ApprovalMode;
  /** ask 时询问谁；没有就按拒绝处理（没有终端的 ask 就是 deny）。 */
  readonly approver?: Approver;
  /** 等应答最多多久，过时按拒绝处理。默认 60 秒。 */
  readonly timeoutMs?: number;
  /** 这个调用要不要许可：要就返回询问的内容，不要就返回 undefined。 */
  needsApproval(input: ToolInput): Promise<ApprovalRequest | undefined>;
}

/** 给 `tool` 加上许可检查。每次运行创建一个：“本次运行都允许”的应答记在里面。 */
export function withApproval(tool: Tool, options: ApprovalOptions): Tool {
  /** “本次运行都允许”过的程序（绝对路径）。 */
  const allowedForRun = new Set<string>();
  /** “允许一次”过的调用：Runtime 交给 authorize 和 execute 的是同一个 input 对象。 */
  const approvedOnce = new WeakSet<ToolInput>();

  async function authorize(input: ToolInput, signal: AbortSignal): Promise<Authorization> {
    const request = await options.needsApproval(input);
    if (request === undefined || allowedForRun.has(request.program) || approvedOnce.has(input)) {
      return undefined;
    }
    const call = `${request.tool} ${JSON.stringify(request.argv)}`;
    switch (options.approval) {
      case "auto":
        // 不问、不阻止：execute 回答 not_allowed，模型可以换个做法。
        return undefined;
      case "deny":
        return blockRun(`${request.reason}；--approval deny：${call} 没有执行`);
      case "ask": {
        const outcome = await requestApproval({
          approver: options.approver ?? denyAll,
          request,
          timeoutMs: options.timeoutMs ?? 60_000,
          signal,
        });
        // #region exercise
        // TODO(lab-14): 现在不管用户怎么回答，调用都会执行。拒绝（outcome.allowed 为 false，
        // 包括超时、异常、看不懂的应答）时返回 blockRun(原因)：原因里写明 request.reason、
        // outcome.reason 和调用 call；允许时记下范围：outcome.forRun 记进 allowedForRun
        // （按 request.program），否则记进 approvedOnce（按 input）。提示：pnpm lesson hint 14
        void outcome; // 应答还没用上；实现时删掉这一行。
        approvedOnce.add(input);
        return undefined;
        // #endregion exercise
      }
      default: {
        const unreachable: never = options.approval;
        throw new TypeError(`unhandled approval mode ${String(unreachable)}`);
      }
    }
  }

  return {
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(tool.inputSchema === undefined ? {} : { inputSchema: tool.inputSchema }),
    authorize,
    async execute(input, signal) {
      // 绕过 Runtime 直接调用 execute，也要先过许可检查。
      const blocked = await authorize(input, signal);
      if (blocked !== undefined) return blocked;
      const request = await options.needsApproval(input);
      // “允许一次”只算一次：用掉就删。auto 模式下从没被允许过，回答 not_allowed。
      if (
        request !== undefined &&
        !allowedForRun.has(request.program) &&
        !approvedOnce.delete(input)
      ) {
        return toolError("not_allowed", `${request.reason}（--approval auto 不询问）`);
      }
      return tool.execute(input, signal);
    },
  };
}
