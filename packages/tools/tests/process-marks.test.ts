import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  currentMark,
  findMarkedProcesses,
  leftoverProcesses,
  markedEnv,
} from "./support/process-marks.ts";

describe("the leftover-process check", () => {
  it("finds a marked process that outlives its caller, and loses it once it is killed", async () => {
    const child = spawn("sleep", ["30"], { env: markedEnv(), detached: true, stdio: "ignore" });
    child.unref();
    try {
      await expect.poll(() => findMarkedProcesses(currentMark())).toContain(child.pid);
    } finally {
      process.kill(child.pid ?? 0, "SIGKILL");
    }
    expect(await leftoverProcesses(currentMark())).toEqual([]);
  });

  it("finds a grandchild through the inherited environment", async () => {
    const child = spawn("sh", ["-c", "sleep 30 & echo $!"], { env: markedEnv(), detached: true });
    const pid = await new Promise<number>((resolve) =>
      child.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
    );
    try {
      await expect.poll(() => findMarkedProcesses(currentMark())).toContain(pid);
    } finally {
      process.kill(-(child.pid ?? 0), "SIGKILL");
    }
    expect(await leftoverProcesses(currentMark())).toEqual([]);
  });
});
