import type { HookRun, HookVerdict } from "@coding-agent/cli";

/**
 * 一个 hook 命令结束的方式，判成总项目用的决定（docs/contracts.md §7）：
 * - 退出码 0 放行：stdout 什么都没写，或者是一个 JSON 对象，它的键都在 fields 里（这个事件接受的改写）；
 * - 退出码 2 否决：stderr 就是理由；
 * - 其余一律 { kind: "failed", why, stderr }，按否决处理（fail closed）。
 */
export function hookVerdict(
  ran: HookRun,
  options: { readonly fields: readonly string[]; readonly timeoutMs: number },
): HookVerdict {
  // #region exercise
  if (ran.kind === "spawn_failed") {
    return { kind: "failed", why: `无法启动：${ran.message}`, stderr: "" };
  }
  if (ran.kind === "timeout") {
    return { kind: "failed", why: `超过 ${options.timeoutMs} ms 未结束`, stderr: ran.stderr };
  }
  if (ran.kind === "cancelled") return { kind: "failed", why: "运行被取消", stderr: ran.stderr };
  if (ran.kind === "signaled") {
    return { kind: "failed", why: `被信号 ${ran.signal} 终止`, stderr: ran.stderr };
  }
  // #endregion exercise
  const { exitCode, stderr } = ran;
  if (exitCode === 2) return { kind: "veto", message: stderr.trim() };
  // #region exercise
  if (exitCode !== 0) return { kind: "failed", why: `退出码 ${exitCode}`, stderr };
  // #endregion exercise
  if (ran.stdoutTruncated) return { kind: "failed", why: "stdout 超出上限，无法解析", stderr };
  const text = ran.stdout.trim();
  if (text === "") return { kind: "allow", output: undefined };
  // #region exercise
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
    return { kind: "failed", why: `stdout 有这个事件不认识的字段 ${unknown.join("、")}`, stderr };
  }
  return { kind: "allow", output: json as Record<string, unknown> };
  // #endregion exercise
}
