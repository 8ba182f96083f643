import { type BlockedOutcome, blockRun } from "@coding-agent/agent-core";
import { type ApprovalMode, type Approver, requestApproval } from "../approvals.ts";

/** How writes are permitted in one run (`--approval`). */
export interface WriteApprovalOptions {
  /** `auto`: writes `--allow-path` permits go ahead; `deny`: the run ends blocked; `ask`: `approver` decides. */
  readonly approval: ApprovalMode;
  readonly approver?: Approver;
  /** How long an answer may take before it counts as a refusal. Default 60 s. */
  readonly approvalTimeoutMs?: number;
}

/** What is about to be written. */
export interface WriteRequest {
  readonly tool: string;
  readonly paths: readonly string[];
  readonly diff: string;
  /** The workspace root, shown as where the write happens. */
  readonly root: string;
}

/**
 * The permission check every write passes after it is planned and before a byte
 * is written. Returns `"allowed"` or the `blockRun` outcome that ends the run. An
 * "allow for the run" answer covers every later write of the run.
 */
export function createWriteApproval(
  options: WriteApprovalOptions,
): (request: WriteRequest, signal?: AbortSignal) => Promise<"allowed" | BlockedOutcome> {
  let allowedForRun = false;
  return async (request, signal) => {
    if (allowedForRun) return "allowed";
    const reason = `${request.tool} 要修改 ${request.paths.join("、")}，写入需要批准（--approval）`;
    switch (options.approval) {
      case "auto":
        return "allowed";
      case "deny":
        return blockRun(`${reason}；--approval deny：没有写入任何文件`);
      case "ask": {
        const outcome = await requestApproval({
          approver: options.approver ?? (async () => "deny"),
          request: {
            tool: request.tool,
            argv: [request.tool, ...request.paths],
            program: request.root,
            reason,
            paths: request.paths,
            diff: request.diff,
          },
          timeoutMs: options.approvalTimeoutMs ?? 60_000,
          ...(signal === undefined ? {} : { signal }),
        });
        if (!outcome.allowed) return blockRun(`${reason}；${outcome.reason}：没有写入任何文件`);
        if (outcome.forRun) allowedForRun = true;
        return "allowed";
      }
      default: {
        const unreachable: never = options.approval;
        throw new TypeError(`unhandled approval mode ${String(unreachable)}`);
      }
    }
  };
}
