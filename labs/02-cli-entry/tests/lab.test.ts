import { EventEmitter } from "node:events";
import { type CliArgs, exitCodeFor, type RunResult, type RunStatus, runCli } from "@lab";
import { describe, expect, it } from "vitest";

/** Collects what the CLI prints, line by line. */
function createOutput() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    print: {
      stdout: (line: string) => stdout.push(line),
      stderr: (line: string) => stderr.push(line),
    },
  };
}

/** Lets pending listeners and timers run, as a real await on I/O would. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const completed: RunResult = { status: "completed", summary: "完成", steps: 1 };

describe("exitCodeFor", () => {
  it("maps each run status to its documented exit code", () => {
    const statuses: RunStatus[] = [
      "completed",
      "failed",
      "budget_exceeded",
      "blocked",
      "cancelled",
    ];

    expect(statuses.map((status) => [status, exitCodeFor(status)])).toEqual([
      ["completed", 0],
      ["failed", 1],
      ["budget_exceeded", 3],
      ["blocked", 4],
      ["cancelled", 130],
    ]);
  });
});

describe("runCli", () => {
  it("aborts the run on SIGINT and exits with 130", async () => {
    const interrupts = new EventEmitter();
    const output = createOutput();

    const code = await runCli({
      argv: ["run", "修复失败的测试"],
      interrupts,
      ...output.print,
      run: async (_args, signal) => {
        interrupts.emit("SIGINT"); // the user presses Ctrl-C while the run is busy
        await yieldToEventLoop();
        return signal.aborted ? { status: "cancelled", summary: "已取消", steps: 1 } : completed;
      },
    });

    expect(code).toBe(130);
  });

  it("listens for SIGINT only while the run is in progress", async () => {
    const interrupts = new EventEmitter();
    let listenersDuringRun = -1;

    await runCli({
      argv: ["run", "修复失败的测试"],
      interrupts,
      ...createOutput().print,
      run: async () => {
        listenersDuringRun = interrupts.listenerCount("SIGINT");
        return completed;
      },
    });

    expect({ during: listenersDuringRun, after: interrupts.listenerCount("SIGINT") }).toEqual({
      during: 1,
      after: 0,
    });
  });

  it("passes the goal and max steps from the command line to the run", async () => {
    const seen: CliArgs[] = [];

    await runCli({
      argv: ["run", "修复失败的测试", "--max-steps", "7"],
      interrupts: new EventEmitter(),
      ...createOutput().print,
      run: async (args) => {
        seen.push(args);
        return completed;
      },
    });

    expect(seen).toEqual([{ goal: "修复失败的测试", maxSteps: 7 }]);
  });

  it("exits with 2 and prints the usage when the goal is missing, without starting a run", async () => {
    const output = createOutput();
    let runs = 0;

    const code = await runCli({
      argv: ["run"],
      interrupts: new EventEmitter(),
      ...output.print,
      run: async () => {
        runs += 1;
        return completed;
      },
    });

    expect({ code, runs }).toEqual({ code: 2, runs: 0 });
    expect(output.stderr.join("\n")).toContain("用法：coding-agent run <任务目标>");
  });

  it("exits with 1 and reports the error when the run throws", async () => {
    const output = createOutput();

    const code = await runCli({
      argv: ["run", "修复失败的测试"],
      interrupts: new EventEmitter(),
      ...output.print,
      run: async () => {
        throw new Error("模型服务不可用");
      },
    });

    expect(code).toBe(1);
    expect(output.stderr.join("\n")).toContain("模型服务不可用");
  });
});
