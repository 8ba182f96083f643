import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { changedFiles, createWorkspaceVersioner } from "../src/workspace-version.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "ws-version-"));
  await mkdir(join(root, "src"));
  await writeFile(join(root, "src/a.ts"), "export const a = 1;\n");
  await writeFile(join(root, "README.md"), "# x\n");
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("workspace version", () => {
  it("is the same for the same files, whoever takes it", async () => {
    const first = await createWorkspaceVersioner(root).snapshot();
    const second = await createWorkspaceVersioner(root).snapshot();
    expect(second.version).toBe(first.version);
    expect(first.version).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect([...first.files.keys()]).toEqual(["README.md", "src/a.ts"]);
  });

  it("changes when a command rewrites a file behind the tools' back, even with its old mtime", async () => {
    const versioner = createWorkspaceVersioner(root);
    const before = await versioner.snapshot();
    // Same size, mtime set back: only ctime (and the bytes) tell.
    execFileSync("sh", ["-c", "printf 'export const a = 2;\\n' > src/a.ts"], { cwd: root });
    await utimes(join(root, "src/a.ts"), 0, 0);
    const after = await versioner.snapshot();
    expect(after.version).not.toBe(before.version);
    expect(changedFiles(before, after)).toEqual(["src/a.ts"]);
  });

  it("names added and removed files, and leaves .git and node_modules out at any depth", async () => {
    const versioner = createWorkspaceVersioner(root);
    const before = await versioner.snapshot();
    await mkdir(join(root, ".git"));
    await writeFile(join(root, ".git/index"), "x");
    await mkdir(join(root, "src/node_modules/dep"), { recursive: true });
    await writeFile(join(root, "src/node_modules/dep/index.js"), "x");
    const ignored = await versioner.snapshot();
    expect(ignored.version).toBe(before.version);
    await rm(join(root, "README.md"));
    await writeFile(join(root, "src/b.ts"), "");
    const after = await versioner.snapshot();
    expect(changedFiles(before, after)).toEqual(["README.md", "src/b.ts"]);
  });

  it("hashes a symlink's target text without following it out of the workspace", async () => {
    const outside = await mkdtemp(join(tmpdir(), "ws-outside-"));
    try {
      await writeFile(join(outside, "secret.txt"), "one");
      await symlink(join(outside, "secret.txt"), join(root, "link"));
      const versioner = createWorkspaceVersioner(root);
      const before = await versioner.snapshot();
      await writeFile(join(outside, "secret.txt"), "two");
      const after = await versioner.snapshot();
      expect(after.version).toBe(before.version);
      expect(after.files.has("link")).toBe(true);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("an empty file and a missing one are different states", async () => {
    const versioner = createWorkspaceVersioner(root);
    const before = await versioner.snapshot();
    await writeFile(join(root, "empty"), "");
    expect((await versioner.snapshot()).version).not.toBe(before.version);
  });
});
