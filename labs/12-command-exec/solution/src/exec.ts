import { spawn } from "node:child_process";
import { createOutputCap, type ProcessOptions, type ProcessResult } from "@coding-agent/tools";

/**
 * 第 12 课：一定会结束的命令。
 *
 * `runProcess` 不经过 shell 运行一个程序（argv 数组），标准输入关闭，输出有上限，
 * 并且无论如何都会结束：超时、运行被取消、主进程退出但后台还有子进程，
 * 都要杀掉**整个进程组**——子进程、孙进程，一个不留。
 *
 * 输出上限（保留开头和结尾，说明丢了多少字节）来自总项目 `@coding-agent/tools`。
 */
export function runProcess(options: ProcessOptions): Promise<ProcessResult> {
  const [program, ...args] = options.argv;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: { ...options.env },
      // 标准输入关闭：等输入的命令读到文件结束，不会一直等下去。
      stdio: ["ignore", "pipe", "pipe"],
      // #region exercise
      // 新的会话和进程组（setsid）：组号就是子进程的 pid，它派生的进程都在组里。
      detached: true,
      // #endregion exercise
      // argv 原样交给程序：$HOME、;、` 都只是普通字符。
      shell: false,
    });
    const stdout = createOutputCap(options.maxOutputBytes);
    const stderr = createOutputCap(options.maxOutputBytes);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      // #region exercise
      // 负的 pid 表示进程组：一个信号送给组里的每个进程，孙进程也跑不掉。
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // ESRCH：整个组已经不在了。
      }
      // #endregion exercise
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // 主进程结束了，它放到后台的进程也要结束：否则它们比这次调用活得更久，还握着输出管道。
    child.on("exit", killGroup);

    const cleanUp = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      cleanUp();
      killGroup();
      reject(error);
    });
    // close 在输出管道全部关闭后才到：组里还有进程握着管道，这次调用就不算结束。
    child.on("close", (exitCode, signal) => {
      cleanUp();
      if (aborted) {
        reject(options.signal?.reason);
        return;
      }
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.droppedBytes > 0 || stderr.droppedBytes > 0,
        timedOut,
      });
    });
  });
}
