/**
 * The built-in demo (`coding-agent run "目标"` with the fake model and no `--script`), as the
 * repository's README runs it: it completes in the repository root, whose `package.json` has
 * a test script, and in an empty folder. A script that runs out after a rejected finish says
 * which gate asked for more.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureCli, finish } from "./support/run-cli.ts";
import { spawnBin } from "./support/spawn-bin.ts";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DEMO_NOTE = "内置演示脚本不运行测试，完成验证门 auto 不拿 package.json 的 test 脚本检查它";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "built-in-demo-"));
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe("coding-agent run with the built-in demo script", () => {
  it("completes in the repository root, whose test script the demo does not run", async () => {
    const ran = await spawnBin(["run", "目标"], { cwd: REPO_ROOT });
    expect(ran.stdout).toContain("状态：completed（完成，finished）");
    expect(ran.stderr).toContain(DEMO_NOTE);
    expect(ran.code).toBe(0);
  });

  it("completes in an empty folder, without the note (there is no test command)", async () => {
    const ran = await spawnBin(["run", "目标"], { cwd: base });
    expect(ran.stdout).toContain("状态：completed（完成，finished）");
    expect(ran.stderr).not.toContain(DEMO_NOTE);
    expect(ran.code).toBe(0);
  });

  it.each([
    ["--finish-gate tests", ["--finish-gate", "tests"]],
    ["a test command the user named", ["--test-command", "node -e 0"]],
  ])("is judged on tests with %s, and its end names the gate", async (_, flags) => {
    await writeFile(join(base, "package.json"), JSON.stringify({ scripts: { test: "exit 0" } }));
    const { code, stderr, result } = await captureCli([
      "run",
      "目标",
      "--workspace",
      base,
      ...flags,
      "--json",
    ]);
    expect(code).toBe(1);
    expect(stderr).not.toContain(DEMO_NOTE);
    expect(result).toMatchObject({ status: "failed", code: "provider_error" });
    expect(result.reason).toContain("脚本用完了");
    expect(result.reason).toContain("完成验证门（tests）拒绝了上一次完成（no_test_evidence：");
    expect(result.reason).toContain("--finish-gate none");
  });
});

describe("a --script that runs out", () => {
  const scripted = async (turns: unknown[]) => {
    const script = join(base, "script.json");
    await writeFile(script, JSON.stringify(turns));
    const workspace = join(base, "ws");
    await rm(workspace, { recursive: true, force: true });
    await mkdir(workspace);
    return captureCli([
      "run",
      "修好测试",
      "--script",
      script,
      "--workspace",
      workspace,
      "--test-command",
      "node -e 0",
      "--json",
    ]);
  };

  it("says the finish gate rejected the last finish and waits for more", async () => {
    const { result } = await scripted([finish]);
    expect(result.status).toBe("failed");
    expect(result.reason).toMatch(
      /只有 1 轮.*脚本用完了。完成验证门（tests）拒绝了上一次完成（no_test_evidence：/,
    );
  });

  it("says only that the script ran out when no finish was rejected", async () => {
    const { result } = await scripted([{ action: { type: "message", content: "想一想" } }]);
    expect(result.status).toBe("failed");
    expect(result.reason).toContain("脚本用完了");
    expect(result.reason).not.toContain("完成验证门");
  });
});
