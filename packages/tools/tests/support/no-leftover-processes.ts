import { afterEach } from "vitest";
import { currentMark, describeProcesses, leftoverProcesses } from "./process-marks.ts";

// A test that leaves a process running fails, and the process is killed so the next
// test starts clean.
afterEach(async () => {
  const pids = await leftoverProcesses(currentMark());
  if (pids.length === 0) return;
  const description = await describeProcesses(pids);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  throw new Error(`测试结束后仍有进程在运行：\n${description}`);
});
