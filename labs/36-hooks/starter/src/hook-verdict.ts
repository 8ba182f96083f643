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
  // TODO(lab-36): 现在命令没有正常退出（启动失败、超时、被取消、被信号杀掉）也算放行：
  //   卡住或崩溃的守卫等于没有守卫。改成：这四种都回答 { kind: "failed", why, stderr }，
  //   why 用中文写明是哪一种（超时写出 options.timeoutMs）。
  if (ran.kind !== "exited") return { kind: "allow", output: undefined };
  // #endregion exercise
  const { exitCode, stderr } = ran;
  if (exitCode === 2) return { kind: "veto", message: stderr.trim() };
  // #region exercise
  // TODO(lab-36): 现在除了 2 以外的退出码都算放行（Claude Code 的 exit 1 就是这样“放过”命令的）。
  //   改成：不是 0 就是 failed，why 写出退出码。
  // #endregion exercise
  if (ran.stdoutTruncated) return { kind: "failed", why: "stdout 超出上限，无法解析", stderr };
  const text = ran.stdout.trim();
  if (text === "") return { kind: "allow", output: undefined };
  // #region exercise
  // TODO(lab-36): 现在 stdout 写了什么都当作没写：改写的输入被丢掉，乱写的输出被当成放行。
  //   改成：解析成 JSON；不是 JSON、不是对象（数组、null 也不行）、或者有 fields 之外的键，都是 failed；
  //   否则放行，output 就是这个对象。
  void options;
  return { kind: "allow", output: undefined };
  // #endregion exercise
}
