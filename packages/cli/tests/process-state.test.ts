/**
 * The liveness check the process-leak tests share (`support/process-state.ts`), against
 * real processes: a running one, a zombie, a reaped one, and a name that holds ") Z (".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inProcessTable, isRunning, processState } from "./support/process-state.ts";

const started: ChildProcess[] = [];
let temp: string | undefined;

afterEach(async () => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
  if (temp !== undefined) await rm(temp, { recursive: true, force: true });
  temp = undefined;
});

/** Starts `sh -c script` and gives back the first line it prints (a pid). */
async function startPrinting(script: string): Promise<{ child: ChildProcess; printed: number }> {
  const child = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
  started.push(child);
  const printed = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(Number(out.split("\n")[0]));
    });
    child.once("error", reject);
  });
  return { child, printed };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("processState", { timeout: 30_000 }, () => {
  it("a running process is running; once killed and reaped it is gone", async () => {
    const { child, printed } = await startPrinting("echo $$; exec sleep 30");
    expect(printed).toBe(child.pid);
    expect(processState(printed)).toBe("running");
    expect(isRunning(printed)).toBe(true);
    expect(inProcessTable(printed)).toBe(true);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    await until(() => processState(printed) === "gone");
    expect(isRunning(printed)).toBe(false);
    expect(inProcessTable(printed)).toBe(false);
  });

  it("a zombie has ended but is still in the process table", async () => {
    // `sleep 0`'s parent becomes `sleep 30` (exec), which never reaps it.
    const { printed: zombie } = await startPrinting("sleep 0 & echo $!; exec sleep 30");
    await until(() => processState(zombie) !== "running");
    expect(processState(zombie)).toBe("zombie");
    expect(isRunning(zombie)).toBe(false);
    expect(inProcessTable(zombie)).toBe(true);
  });

  it("reads the state after the name's last parenthesis: a name with ') Z (' is running", async () => {
    temp = await mkdtemp(join(tmpdir(), "process-state-"));
    const odd = join(temp, "a) Z (b");
    const { printed } = await startPrinting(
      `ln -s "$(command -v sleep)" '${odd}' && echo $$ && exec '${odd}' 30`,
    );
    await until(() => processState(printed) !== "running" || isNamed(printed, "a) Z (b"));
    expect(processState(printed)).toBe("running");
  });
});

function isNamed(pid: number, name: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === name;
  } catch {
    return false;
  }
}
