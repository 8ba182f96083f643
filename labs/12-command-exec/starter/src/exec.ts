import {
  type ProcessGroup,
  type ProcessOptions,
  type ProcessResult,
  runProcess as runCapstoneProcess,
} from "@coding-agent/tools";

/**
 * 第 12 课：一定会结束的命令。
 *
 * 总项目的 `runProcess` 已经做好了其余的一切：不经过 shell 运行 argv、标准输入关闭、
 * 输出上限、超时的定时器、运行的取消、等输出管道全部关闭才返回
 * （`packages/tools/src/sandbox/exec.ts`）。它把“子进程放在哪个进程组、怎样结束它和它
 * 派生的一切”交给一个 `ProcessGroup`：这就是你写的部分。
 *
 * 要求：超时、运行被取消、主进程退出但后台还有子进程时，杀掉**整个进程组**——
 * 子进程、孙进程，一个不留。
 */
export const processGroup: ProcessGroup = {
  // #region exercise
  // TODO(lab-12): 让子进程成为一个新进程组的组长，这样它派生的子进程、孙进程都在这个组里，
  // 组号就是 child.pid。
  newGroup: false,
  // #endregion exercise
  /**
   * 超时（"timeout"）、取消（"abort"）、出错（"error"）和主进程退出（"exit"）时都会被调用：
   * 主进程退出了，它放到后台的进程还活着，还握着输出管道，同样要结束。可能被调用不止一次，
   * 组也可能已经不在了；这里抛出的异常会让这次调用以它拒绝。
   */
  killAll(child) {
    // #region exercise
    // TODO(lab-12): 现在只杀了直接的子进程：它派生的进程活下来，还握着输出管道，
    // 这次调用永远等不到结束。要做到：整个进程组都收到 SIGKILL；组已经不在了不算错误。
    child.kill("SIGKILL");
    // #endregion exercise
  },
};

/** 总项目的 `runProcess`，用你的 `processGroup` 放置并结束子进程。 */
export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  return runCapstoneProcess(options, processGroup);
}
