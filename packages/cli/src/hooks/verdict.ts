import type { HookRun } from "./run-hook.ts";

/** What a hook command's end means (lesson 36). */
export type HookVerdict =
  /** Exit 0: go on; `output` is its stdout's JSON object (undefined: it printed nothing). */
  | { readonly kind: "allow"; readonly output: Readonly<Record<string, unknown>> | undefined }
  /** Exit 2: vetoed, `message` (its stderr) says why. */
  | { readonly kind: "veto"; readonly message: string }
  /** Anything else: the hook broke. Treated as a veto (fail closed); `why` names the failure. */
  | { readonly kind: "failed"; readonly why: string; readonly stderr: string };

/**
 * Judges how a hook command ended (docs/contracts.md §7): exit 0 allows — with nothing on stdout, or one
 * JSON object whose keys are all among `fields` (the rewrites this event accepts); exit 2
 * vetoes with its stderr; everything else fails closed: another exit code, a signal, a
 * timeout, a cancel, a command that could not start, stdout that is not such an object or
 * was cut at its bound. A guard that crashes must not let the call through.
 */
export function hookVerdict(
  ran: HookRun,
  options: { readonly fields: readonly string[]; readonly timeoutMs: number },
): HookVerdict {
  switch (ran.kind) {
    case "spawn_failed":
      return { kind: "failed", why: `无法启动：${ran.message}`, stderr: "" };
    case "timeout":
      return {
        kind: "failed",
        why: `超过 ${options.timeoutMs} ms 未结束，已终止整个进程组`,
        stderr: ran.stderr,
      };
    case "cancelled":
      return { kind: "failed", why: "运行被取消", stderr: ran.stderr };
    case "signaled":
      return { kind: "failed", why: `被信号 ${ran.signal} 终止`, stderr: ran.stderr };
    case "exited":
      break;
    default: {
      const unreachable: never = ran;
      throw new TypeError(`unhandled hook run ${JSON.stringify(unreachable)}`);
    }
  }
  const { exitCode, stderr } = ran;
  if (exitCode === 2) return { kind: "veto", message: stderr.trim() };
  if (exitCode !== 0) return { kind: "failed", why: `退出码 ${exitCode}`, stderr };
  if (ran.stdoutTruncated) return { kind: "failed", why: "stdout 超出上限，无法解析", stderr };
  const text = ran.stdout.trim();
  if (text === "") return { kind: "allow", output: undefined };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "failed", why: "stdout 不是 JSON", stderr };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { kind: "failed", why: "stdout 的 JSON 不是对象", stderr };
  }
  const unknown = Object.keys(json).filter((key) => !options.fields.includes(key));
  if (unknown.length > 0) {
    return {
      kind: "failed",
      why: `stdout 的 JSON 有这个事件不认识的字段 ${unknown.join("、")}`,
      stderr,
    };
  }
  return { kind: "allow", output: json as Record<string, unknown> };
}
