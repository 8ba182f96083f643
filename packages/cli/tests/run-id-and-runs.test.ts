/**
 * Finding a run again: `coding-agent run` names its run id on a terminal's stderr (never in
 * `--json`'s stdout, never in piped output), and `coding-agent runs` is a table with headers.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.ts";
import { EMPTY_WORKSPACE } from "./support/isolate.ts";
import { captureCli } from "./support/run-cli.ts";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "run-id-home-"));
});
afterEach(() => rm(home, { recursive: true, force: true }));

const env = () => ({ CODING_AGENT_HOME: home, PATH: process.env.PATH });

/** `coding-agent <argv>` with stderr on a terminal, as `main.ts` wires it for a person. */
async function onTerminal(argv: readonly string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    argv,
    {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stderrIsTerminal: true,
    },
    new AbortController().signal,
    env(),
  );
  return { code, stdout, stderr };
}

describe("coding-agent run names its run id", () => {
  it("on a terminal's stderr, while --json's stdout stays one JSON document", async () => {
    const ran = await onTerminal(["run", "你好", "--workspace", EMPTY_WORKSPACE, "--json"]);
    expect(ran.code).toBe(0);
    const result = JSON.parse(ran.stdout);
    expect(result.runId).toMatch(/^\d{8}-\d{6}Z-[0-9a-f]{6}$/);
    expect(ran.stderr).toContain(
      `coding-agent：运行 ID ${result.runId}（coding-agent trace ${result.runId} 查看报告）`,
    );
  });

  it("not when stderr is piped, so captured output is the same on every run", async () => {
    const ran = await captureCli(["run", "你好", "--workspace", EMPTY_WORKSPACE], env());
    expect(ran.code).toBe(0);
    expect(ran.stderr).not.toContain("运行 ID");
  });
});

describe("coding-agent run --run-id", () => {
  it("runs under the id it is given, so a caller finds the folder without the run's output", async () => {
    const ran = await captureCli(
      ["run", "你好", "--workspace", EMPTY_WORKSPACE, "--json", "--run-id", "trial-fix_sum-2"],
      env(),
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.result.runId).toBe("trial-fix_sum-2");
    const log = await readFile(join(home, "runs", "trial-fix_sum-2", "state.jsonl"), "utf8");
    expect(JSON.parse(log.split("\n")[0] ?? "")).toMatchObject({
      type: "run_started",
      runId: "trial-fix_sum-2",
    });
  });

  it("refuses an id whose folder exists, and leaves that run's records as they were", async () => {
    const first = await captureCli(
      ["run", "你好", "--workspace", EMPTY_WORKSPACE, "--json", "--run-id", "taken"],
      env(),
    );
    expect(first.code, first.stderr).toBe(0);
    const file = join(home, "runs", "taken", "state.jsonl");
    const before = await readFile(file, "utf8");
    const again = await captureCli(
      ["run", "你好", "--workspace", EMPTY_WORKSPACE, "--json", "--run-id", "taken"],
      env(),
    );
    expect(again.code).not.toBe(0);
    expect(again.result).toMatchObject({ status: "failed", code: "state_failed" });
    expect(again.result.reason).toContain("运行 taken 的目录已经存在");
    expect(await readFile(file, "utf8")).toBe(before);
  });

  it("refuses an id that could name another folder, before anything runs", async () => {
    for (const id of ["../escape", "a/b", "-x", ""]) {
      const ran = await captureCli(
        ["run", "你好", "--workspace", EMPTY_WORKSPACE, `--run-id=${id}`],
        env(),
      );
      expect(ran.code, id).toBe(2);
      expect(ran.stderr, id).toContain("--run-id 只能由字母、数字、_、- 组成");
    }
    expect(await readdir(home)).toEqual([]);
  });
});

describe("coding-agent runs", () => {
  it("says there is no run yet in an empty home", async () => {
    const listed = await captureCli(["runs"], env());
    expect(listed.stdout).toBe("还没有运行记录\n");
  });

  it("prints a header line, then one line a run, its columns under their headers", async () => {
    const first = await captureCli(["run", "hi", "--workspace", EMPTY_WORKSPACE, "--json"], env());
    const second = await captureCli(
      ["run", "修复 sum", "--workspace", EMPTY_WORKSPACE, "--max-steps", "1", "--json"],
      env(),
    );
    const listed = await captureCli(["runs"], env());
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trimEnd().split("\n");
    expect(rows).toHaveLength(2);
    // Found by id: two runs may start within the same millisecond, and the order is not the point.
    const lines = [
      header,
      ...[second, first].map(({ result }) => rows.find((row) => row.startsWith(result.runId))),
    ];
    expect(lines[0]).toMatch(/^运行 ID {2,}开始时间 {2,}状态 {2,}目标$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${second.result.runId} {2}\\S+Z {2}budget_exceeded {2}修复 sum$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^${first.result.runId} {2}\\S+Z {2}completed {8}hi$`));
    // Each column starts where its header does, in terminal columns (a Chinese character takes two).
    const columns = (text: string) =>
      [...text].reduce((n, c) => n + (/\p{Script=Han}/u.test(c) ? 2 : 1), 0);
    const at = (line: string, cell: string | RegExp) =>
      columns(line.slice(0, typeof cell === "string" ? line.indexOf(cell) : line.search(cell)));
    expect(at(lines[1] ?? "", "budget_exceeded")).toBe(at(lines[0] ?? "", "状态"));
    expect(at(lines[1] ?? "", "修复 sum")).toBe(at(lines[0] ?? "", "目标"));
    expect(at(lines[2] ?? "", /\d{4}-\d\d-\d\dT/)).toBe(at(lines[0] ?? "", "开始时间"));
  });
});
