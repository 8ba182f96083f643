/**
 * `run_command` without approvals, as lesson 13 left it: the policy turns a program
 * name into an absolute path, the child gets the policy's cwd and environment.
 * Which calls need permission is said apart, by `commandNeedsApproval`.
 */
import { defineTool, type Tool, type ToolInput, toolError } from "@coding-agent/agent-core";
import {
  type ApprovalRequest,
  RunCommandInputSchema,
  runProcess,
  type SandboxPolicy,
} from "@coding-agent/tools";

/** 按策略运行程序：名字解析为绝对路径，cwd 与环境由策略给出；不问任何人。 */
export function createCommandTool(policy: SandboxPolicy): Tool {
  return defineTool({
    description: "在工作区运行程序（不经过 shell）：{ argv, timeoutMs? }",
    inputSchema: RunCommandInputSchema,
    async execute(input, signal) {
      const [name = "", ...args] = input.argv;
      const program = await policy.resolveProgram(name);
      if (!program.ok) return toolError("not_allowed", program.reason);
      return runProcess({
        argv: [program.path, ...args],
        cwd: policy.cwd,
        env: policy.env,
        timeoutMs: input.timeoutMs ?? 10_000,
        maxOutputBytes: 30_000,
        signal,
      });
    },
  });
}

/**
 * 哪些 run_command 调用需要许可：程序能解析、却不在 --allow-command 里。
 * 名字不合格或找不到的，交给工具自己回答 not_allowed，不必问人。
 */
export function commandNeedsApproval(policy: SandboxPolicy) {
  return async (input: ToolInput): Promise<ApprovalRequest | undefined> => {
    const argv = RunCommandInputSchema.parse(input).argv;
    const name = argv[0] ?? "";
    const program = await policy.resolveProgram(name);
    if (!program.ok || program.allowed) return undefined;
    return {
      tool: "run_command",
      argv,
      program: program.path,
      reason: `${name} 不在允许的命令里（--allow-command）`,
    };
  };
}
