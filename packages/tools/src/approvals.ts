/** `--approval`: what happens to a call that needs permission (docs/contracts.md §6). */
export const APPROVAL_MODES = ["ask", "deny", "auto"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** An answer to a permission request. `allow_run` covers the same program for the rest of the run. */
export type ApprovalDecision = "allow_once" | "allow_run" | "deny";

/** What the user is asked about. */
export interface ApprovalRequest {
  readonly tool: string;
  readonly argv: readonly string[];
  /** The absolute path the program resolved to. */
  readonly program: string;
  /** Why permission is needed, in Chinese. */
  readonly reason: string;
  /** For a write (`edit_file`, `write_file`, `apply_edits`): the files it changes. */
  readonly paths?: readonly string[];
  /** For a write: the unified diff it would apply. */
  readonly diff?: string;
}

/**
 * Asks for permission. Should stop when `signal` fires (the run was cancelled, or
 * the answer came too late); whatever it answers after that is ignored.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** The outcome of asking: a decision and, for a refusal, why. */
export type ApprovalOutcome =
  | { readonly allowed: true; readonly forRun: boolean }
  | { readonly allowed: false; readonly reason: string };

/**
 * Asks `approver`, waiting at most `timeoutMs`. No answer in time, an approver
 * that throws, and an unknown answer all count as a refusal: silence never
 * grants a permission.
 */
export async function requestApproval(options: {
  readonly approver: Approver;
  readonly request: ApprovalRequest;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}): Promise<ApprovalOutcome> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
  });
  try {
    const answer = await Promise.race([
      options.approver(options.request, controller.signal).catch(() => "error" as const),
      timedOut,
    ]);
    switch (answer) {
      case "allow_once":
        return { allowed: true, forRun: false };
      case "allow_run":
        return { allowed: true, forRun: true };
      case "deny":
        return { allowed: false, reason: "用户拒绝" };
      case "timeout":
        return { allowed: false, reason: `${options.timeoutMs} ms 内没有应答，按拒绝处理` };
      case "error":
        return { allowed: false, reason: "询问权限失败，按拒绝处理" };
      default:
        return { allowed: false, reason: `无法识别的应答 ${JSON.stringify(answer)}，按拒绝处理` };
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    // Tell a prompt still waiting that its answer is no longer wanted.
    controller.abort();
  }
}

/** An approver that refuses everything: `--approval deny`, and `ask` without a terminal. */
export const denyAll: Approver = async () => "deny";
