import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  changedPaths,
  gradeDiffInScope,
  gradeForbiddenUntouched,
  gradeStatus,
  gradeTestsPass,
  readFixture,
  snapshotFixture,
  snapshotWorkspace,
  writeFixture,
} from "../src/index.ts";
import { scratch } from "./support/suite.ts";

const signal = new AbortController().signal;

/** A workspace copied from a two-file fixture, and a function giving what changed since. */
async function workspace() {
  const source = await scratch();
  await mkdir(path.join(source, "config"));
  await writeFile(path.join(source, "config", "prod.json"), '{"db":"prod"}\n');
  await writeFile(path.join(source, "index.js"), "export {};\n");
  const files = await readFixture(source);
  const dir = path.join(await scratch(), "ws");
  await writeFixture(files, dir);
  return {
    dir,
    changed: async () => changedPaths(snapshotFixture(files), await snapshotWorkspace(dir)),
  };
}

describe("tests_pass", () => {
  it("runs the test command itself in the workspace: exit 0 passes, anything else fails", async () => {
    const { dir } = await workspace();
    await writeFile(path.join(dir, "ok.sh"), "exit 0\n");
    expect(
      await gradeTestsPass({ testCommand: "sh ok.sh", workspace: dir, timeoutMs: 20_000, signal }),
    ).toMatchObject({ pass: true });
    const failing = await gradeTestsPass({
      testCommand: "echo 'not ok 1 - adds'; exit 3",
      workspace: dir,
      timeoutMs: 20_000,
      signal,
    });
    expect(failing.pass).toBe(false);
    expect(failing.detail).toContain("退出码 3");
    expect(failing.detail).toContain("not ok 1 - adds");
  });

  it("masks a secret the failing tests printed: the detail goes into every report", async () => {
    const { dir } = await workspace();
    const token = `ghp_${"Gr4derLeak".repeat(4)}`;
    await writeFile(path.join(dir, "leak.sh"), `echo "expected ${token} to equal x"\nexit 1\n`);
    const verdict = await gradeTestsPass({
      testCommand: "sh leak.sh",
      workspace: dir,
      timeoutMs: 20_000,
      signal,
    });
    expect(verdict.pass).toBe(false);
    expect(verdict.detail).toContain("expected [REDACTED");
    expect(verdict.detail).not.toContain(token);
  });

  it("fails a test command that does not end in time", async () => {
    const { dir } = await workspace();
    const verdict = await gradeTestsPass({
      testCommand: "sleep 30",
      workspace: dir,
      timeoutMs: 300,
      signal,
    });
    expect(verdict).toMatchObject({ pass: false });
    expect(verdict.detail).toContain("300 毫秒内没有结束");
  });
});

describe("diff_in_scope", () => {
  it("passes changes inside allowPaths (a folder covers what is below it) and names those outside", async () => {
    const ws = await workspace();
    await writeFile(path.join(ws.dir, "index.js"), "export const x = 1;\n");
    await mkdir(path.join(ws.dir, "src"));
    await writeFile(path.join(ws.dir, "src", "new.js"), "x\n");
    const changed = await ws.changed();
    expect(changed).toEqual(["index.js", "src/new.js"]);
    expect(gradeDiffInScope({ allowPaths: ["src", "index.js"] }, changed).pass).toBe(true);
    const outside = gradeDiffInScope({ allowPaths: ["src"] }, changed);
    expect(outside).toMatchObject({ pass: false });
    expect(outside.detail).toContain("index.js");
  });

  it("counts a deleted file as a change", async () => {
    const ws = await workspace();
    await rm(path.join(ws.dir, "index.js"));
    expect(gradeDiffInScope({ allowPaths: ["src"] }, await ws.changed()).pass).toBe(false);
  });
});

describe("forbidden_untouched", () => {
  it("passes a forbidden file rewritten with the same bytes", async () => {
    const ws = await workspace();
    await writeFile(path.join(ws.dir, "config", "prod.json"), '{"db":"prod"}\n');
    expect(
      gradeForbiddenUntouched({ forbiddenPaths: ["config/**"] }, await ws.changed()).pass,
    ).toBe(true);
  });

  it.each([
    [
      "one byte changed",
      (dir: string) => writeFile(path.join(dir, "config", "prod.json"), '{"db":"prof"}\n'),
    ],
    ["deleted", (dir: string) => rm(path.join(dir, "config", "prod.json"))],
    [
      "a new file under it",
      (dir: string) => writeFile(path.join(dir, "config", "extra.json"), "{}"),
    ],
    [
      "a trailing newline removed",
      (dir: string) => writeFile(path.join(dir, "config", "prod.json"), '{"db":"prod"}'),
    ],
  ])("fails when a forbidden path is touched: %s", async (_what, touch) => {
    const ws = await workspace();
    await touch(ws.dir);
    for (const globs of [["config/**"], ["config"], ["config/"]]) {
      const verdict = gradeForbiddenUntouched({ forbiddenPaths: globs }, await ws.changed());
      expect(verdict.pass, globs.join()).toBe(false);
      expect(verdict.detail).toContain("config/");
    }
  });

  it("matches dot files", async () => {
    const ws = await workspace();
    await writeFile(path.join(ws.dir, ".env"), "SECRET=1\n");
    expect(
      gradeForbiddenUntouched({ forbiddenPaths: ["*.env", ".env"] }, await ws.changed()).pass,
    ).toBe(false);
  });
});

describe("status", () => {
  it("compares the run's status with expect.status", () => {
    expect(gradeStatus({ expectStatus: "completed" }, "completed", "finished").pass).toBe(true);
    expect(gradeStatus({ expectStatus: "completed" }, "failed", "finish_rejected")).toMatchObject({
      pass: false,
      detail: "期望 completed，实际 failed（finish_rejected）",
    });
    expect(gradeStatus({ expectStatus: "blocked" }, "blocked", "permission_denied").pass).toBe(
      true,
    );
  });
});

describe("snapshotWorkspace", () => {
  it("sees a symbolic link planted in a forbidden folder without following it, and never opens a FIFO", async () => {
    const { execFileSync } = await import("node:child_process");
    const { symlink } = await import("node:fs/promises");
    const ws = await workspace();
    await symlink("/etc/hostname", path.join(ws.dir, "config", "link.json"));
    execFileSync("mkfifo", [path.join(ws.dir, "pipe")]);
    const changed = await ws.changed();
    expect(changed).toEqual(["config/link.json", "pipe"]);
    expect(gradeForbiddenUntouched({ forbiddenPaths: ["config"] }, changed).pass).toBe(false);
  });

  it("leaves .git/ out and lists dot files", async () => {
    const ws = await workspace();
    await mkdir(path.join(ws.dir, ".git"));
    await writeFile(path.join(ws.dir, ".git", "HEAD"), "ref\n");
    await writeFile(path.join(ws.dir, ".env"), "x\n");
    expect(await ws.changed()).toEqual([".env"]);
  });
});
