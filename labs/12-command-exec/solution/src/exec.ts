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
  // 新的会话和进程组（setsid）：组号就是子进程的 pid，它派生的进程都在组里。
  newGroup: true,
  // #endregion exercise
  /**
   * 超时（"timeout"）、取消（"abort"）、出错（"error"）和主进程退出（"exit"）时都会被调用：
   * 主进程退出了，它放到后台的进程还活着，还握着输出管道，同样要结束。可能被调用不止一次，
   * 组也可能已经不在了；这里抛出的异常会让这次调用以它拒绝。
   */
  killAll(child) {
    // #region exercise
    // 负的 pid 表示进程组：一个信号送给组里的每个进程，孙进程也跑不掉。
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // ESRCH：整个组已经不在了。
    }
    // #endregion exercise
  },
};

/** 总项目的 `runProcess`，用你的 `processGroup` 放置并结束子进程。 */
export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  return runCapstoneProcess(options, processGroup);
}
