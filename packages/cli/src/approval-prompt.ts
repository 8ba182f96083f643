import { createInterface } from "node:readline/promises";
import type { ApprovalDecision, Approver } from "@coding-agent/tools";

/** Reads a typed answer: `y` allows this call once, `a` for the whole run; anything else refuses. */
export function parseApprovalAnswer(answer: string): ApprovalDecision {
  const text = answer.trim().toLowerCase();
  if (["y", "yes", "是", "允许"].includes(text)) return "allow_once";
  if (["a", "all", "always", "全部"].includes(text)) return "allow_run";
  return "deny";
}

/**
 * `--approval ask` on a terminal: prints the request in Chinese on `output` (stderr,
 * so stdout stays the result) and reads one line from `input`. Ctrl-C while asking
 * calls `onInterrupt` (the CLI cancels the run) and refuses.
 */
export function createTerminalApprover(options: {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  readonly onInterrupt?: () => void;
}): Approver {
  return async (request, signal) => {
    const rl = createInterface({ input: options.input, output: options.output });
    rl.on("SIGINT", () => {
      rl.close();
      options.onInterrupt?.();
    });
    try {
      const what =
        request.paths === undefined
          ? [`  命令：${JSON.stringify(request.argv)}`, `  程序：${request.program}`]
          : [
              `  文件：${request.paths.join("、")}`,
              ...(request.diff ? [request.diff.trimEnd()] : []),
            ];
      const answer = await rl.question(
        [
          "",
          `需要批准：${request.reason}`,
          ...what,
          "允许吗？[y] 仅这一次 · [a] 本次运行都允许 · [N] 拒绝：",
        ].join("\n"),
        { signal },
      );
      return parseApprovalAnswer(answer);
    } catch {
      // Closed, interrupted or timed out: no answer is a refusal.
      return "deny";
    } finally {
      rl.close();
    }
  };
}
