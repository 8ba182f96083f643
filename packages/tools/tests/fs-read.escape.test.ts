import { createHash } from "node:crypto";
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createToolRegistry, type ToolErrorResult } from "@coding-agent/agent-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListFilesResult, listWorkspaceFiles, readWorkspaceFile } from "../src/fs-read.ts";
import { searchWorkspace } from "../src/search.ts";
import { createWorkspace, type Workspace } from "../src/workspace.ts";
import { createWorkspaceTools } from "../src/workspace-tools.ts";
import { createTempLayout, SECRET, type TempLayout } from "./support/temp-workspace.ts";

let layout: TempLayout;
let workspace: Workspace;

beforeAll(async () => {
  layout = await createTempLayout();
  workspace = createWorkspace(layout.workspace);
});
afterAll(() => layout.remove());

function filesOf(result: ListFilesResult | ToolErrorResult): readonly string[] {
  if ("ok" in result) throw new Error(`expected a listing, got ${JSON.stringify(result)}`);
  return result.files;
}

/** Escape attempts, each on the real filesystem: every one must be refused. */
const ESCAPES: ReadonlyArray<readonly [name: string, path: (l: TempLayout) => string]> = [
  ["`..` segments", () => "../outside/secret.txt"],
  ["`..` in the middle of a path", () => "src/deep/../../../outside/secret.txt"],
  ["an absolute path outside", (l) => join(l.outside, "secret.txt")],
  ["an absolute system path", () => "/etc/passwd"],
  ["a symlink inside pointing to a file outside", () => "link-out"],
  ["a symlinked parent folder", () => "dir-out/secret.txt"],
  ["a missing file under a symlinked parent folder", () => "dir-out/not-there.txt"],
  ["a dangling symlink pointing outside", () => "dangling-out"],
  ["a chain of symlinks whose last link dangles outside", () => "chain-1"],
  ["a file under a chain of symlinks that dangles outside", () => "chain-1/x.txt"],
  ["a symlink into a sibling folder sharing the workspace's name as prefix", () => "link-sibling"],
  ["a symlink loop (where it leads cannot be known)", () => "loop-a"],
  ["a NUL byte", () => "notes.txt\0../outside/secret.txt"],
  ["Windows-style `..\\`", () => "..\\outside\\secret.txt"],
  ["Windows-style `..\\` after a folder", () => "src\\..\\..\\outside\\secret.txt"],
  ["a Windows drive path", () => "C:\\Windows\\win.ini"],
  ["a sibling folder sharing the workspace's name as prefix", (l) => `${l.workspace}-evil/x.txt`],
  [
    "a case variant of the root (case-sensitive filesystem: another place)",
    (l) => join(l.workspace.toUpperCase(), "notes.txt"),
  ],
];

describe("read_file refuses every escape with path_outside_workspace", () => {
  it.each(ESCAPES)("%s", async (_name, path) => {
    const result = await readWorkspaceFile(workspace, { path: path(layout) });
    expect(result).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });
});

describe("list_files and search refuse every escape", () => {
  it.each(ESCAPES)("list_files path: %s", async (_name, path) => {
    const result = await listWorkspaceFiles(workspace, { path: path(layout) });
    expect(result).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });

  it.each(ESCAPES)("search path: %s", async (_name, path) => {
    const result = await searchWorkspace(workspace, { pattern: SECRET, path: path(layout) });
    expect(result).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it.each([
    ["a climbing pattern", "../**"],
    ["a climbing pattern inside braces", "{src,..}/**"],
    ["a brace range (expansion bomb)", "{1..9999999}"],
    ["an absolute pattern", "/etc/*"],
    ["a Windows-style pattern", "..\\*"],
  ])("list_files refuses %s with invalid_input", async (_name, pattern) => {
    const result = await listWorkspaceFiles(workspace, { pattern });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_input" } });
  });

  it("does not follow a symlinked folder that leads outside when listing the root", async () => {
    const result = await listWorkspaceFiles(workspace, {});
    const files = filesOf(result);
    expect(files.filter((file) => file.includes("secret"))).toEqual([]);
  });

  it("finds nothing outside through a symlinked file or folder when searching the root", async () => {
    const result = await searchWorkspace(workspace, { pattern: SECRET });
    expect(result).toEqual({ matches: [], truncated: false });
  });
});

describe("read_file inside the workspace", () => {
  it.each([
    ["a relative path", "notes.txt"],
    ["a `./` path", "./notes.txt"],
    ["`..` that stays inside", "src/../notes.txt"],
    ["a symlink that stays inside", "link-in"],
    ["a symlinked folder that stays inside", "dir-in/../notes.txt"],
  ])("accepts %s", async (_name, path) => {
    const result = await readWorkspaceFile(workspace, { path });
    expect(result).toMatchObject({ content: "第一行\nsecond line\nthird line", totalLines: 3 });
  });

  it("accepts an absolute path inside and a Windows-style separator", async () => {
    expect(
      await readWorkspaceFile(workspace, { path: join(layout.workspace, "src", "a.ts") }),
    ).toMatchObject({ totalLines: 2 });
    expect(await readWorkspaceFile(workspace, { path: "src\\deep\\b.ts" })).toMatchObject({
      totalLines: 1,
    });
  });

  it("works when the workspace itself is reached through a symlink", async () => {
    const alias = join(layout.base, "ws-alias");
    await symlink(layout.workspace, alias);
    const viaAlias = createWorkspace(alias);
    expect(await readWorkspaceFile(viaAlias, { path: "notes.txt" })).toMatchObject({
      totalLines: 3,
    });
    expect(await readWorkspaceFile(viaAlias, { path: "link-out" })).toMatchObject({
      error: { code: "path_outside_workspace" },
    });
  });

  it("returns the sha256 of the file's bytes as hash", async () => {
    const bytes = await readFile(join(layout.workspace, "notes.txt"));
    const result = await readWorkspaceFile(workspace, { path: "notes.txt" });
    expect(result).toMatchObject({ hash: createHash("sha256").update(bytes).digest("hex") });
  });

  it("returns a 1-based inclusive line range", async () => {
    const result = await readWorkspaceFile(workspace, {
      path: "notes.txt",
      startLine: 2,
      endLine: 3,
    });
    expect(result).toMatchObject({ content: "second line\nthird line", truncated: false });
  });

  it.each([
    ["a missing file", { path: "missing.txt" }, "not_found"],
    ["`~` (no home expansion)", { path: "~/.ssh/id_rsa" }, "not_found"],
    ["a folder", { path: "src" }, "is_directory"],
    ["a FIFO (would block forever)", { path: "pipe" }, "invalid_input"],
  ])("answers %s with its code", async (_name, input, code) => {
    expect(await readWorkspaceFile(workspace, input)).toMatchObject({ ok: false, error: { code } });
  });

  it.each([
    ["a path that is not a string", { path: 42 }],
    ["an empty path", { path: "" }],
    ["startLine after endLine", { path: "notes.txt", startLine: 3, endLine: 2 }],
    ["a line number of 0", { path: "notes.txt", startLine: 0 }],
    ["a fractional line number", { path: "notes.txt", endLine: 1.5 }],
  ])("its schema answers %s with invalid_input, before the tool runs", (_name, input) => {
    const registry = createToolRegistry(
      createWorkspaceTools({
        workspace: layout.workspace,
        allowCommands: [],
        approval: "deny",
        sandbox: { kind: "none" },
      }),
    );
    expect(registry.validate("read_file", input)).toMatchObject({
      ok: false,
      error: { code: "invalid_input" },
    });
  });

  it("resolves a missing file under a symlinked folder inside to its real place", async () => {
    expect(await workspace.resolve("dir-in/new.ts")).toEqual({
      ok: true,
      absolute: join(layout.workspace, "src", "new.ts"),
      relative: "src/new.ts",
      exists: false,
    });
  });

  it("reports a binary file instead of dumping it", async () => {
    const result = await readWorkspaceFile(workspace, { path: "image.bin" });
    expect(result).toMatchObject({ content: "", binary: true, bytes: 6, truncated: false });
  });

  it("bounds the content of a large file and says so, counting every line", async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1} ${"x".repeat(20)}`);
    await writeFile(join(layout.workspace, "big.txt"), `${lines.join("\n")}\n`);
    const result = await readWorkspaceFile(workspace, { path: "big.txt" });
    expect(result).toMatchObject({ truncated: true, totalLines: 20_000 });
    const content = (result as { content: string }).content;
    expect(content.length).toBeLessThanOrEqual(50_000);
    expect(content.startsWith("line 1 ")).toBe(true);
    // Cut at a line boundary, never mid-line.
    expect(content.split("\n").at(-1)).toMatch(/^line \d+ x{20}$/);
  });
});

describe("list_files and search", () => {
  it("lists files relative to the root, leaving out .git/ and node_modules/", async () => {
    const result = await listWorkspaceFiles(workspace, {});
    const files = filesOf(result);
    expect(files).toEqual(expect.arrayContaining(["notes.txt", "src/a.ts", "src/deep/b.ts"]));
    expect(files.filter((file) => /(^|\/)(\.git|node_modules)\//.test(file))).toEqual([]);
  });

  it("lists a subfolder with a pattern, paths still relative to the root", async () => {
    const result = await listWorkspaceFiles(workspace, { path: "src", pattern: "**/*.ts" });
    expect(result).toEqual({ files: ["src/a.ts", "src/deep/b.ts"], truncated: false });
  });

  it("bounds the listing and says so", async () => {
    const small = { ...(await import("../src/fs-read.ts")).DEFAULT_READ_LIMITS, maxEntries: 2 };
    const result = await listWorkspaceFiles(workspace, {}, small);
    expect(result).toMatchObject({ truncated: true });
    expect(filesOf(result)).toHaveLength(2);
  });

  it("leaves out case variants of .git/ and node_modules/ (the same folders on macOS and Windows)", async () => {
    const files = filesOf(await listWorkspaceFiles(workspace, {}));
    expect(files.filter((file) => /(^|\/)(\.git|node_modules)\//i.test(file))).toEqual([]);
    expect(filesOf(await listWorkspaceFiles(workspace, { path: ".GIT" }))).toEqual([]);
    expect(filesOf(await listWorkspaceFiles(workspace, { path: "lib" }))).toEqual([]);
  });

  it("returns path:line:text matches, skipping .git/, node_modules/ and binary files", async () => {
    const result = await searchWorkspace(workspace, { pattern: "find me" });
    expect(result).toEqual({
      matches: ["src/a.ts:2:// TODO find me", "src/deep/b.ts:1:export const b = 'find me too';"],
      truncated: false,
    });
  });

  it("treats the pattern as plain text, not a regular expression", async () => {
    expect(await searchWorkspace(workspace, { pattern: "(a+)+$" })).toEqual({
      matches: [],
      truncated: false,
    });
    expect(await searchWorkspace(workspace, { pattern: "a = 1;" })).toMatchObject({
      matches: ["src/a.ts:1:export const a = 1;"],
    });
  });

  it("narrows a search with glob and bounds the matches", async () => {
    expect(await searchWorkspace(workspace, { pattern: "find", glob: "src/deep/*" })).toMatchObject(
      { matches: ["src/deep/b.ts:1:export const b = 'find me too';"] },
    );
    const small = { ...(await import("../src/fs-read.ts")).DEFAULT_READ_LIMITS, maxMatches: 1 };
    expect(await searchWorkspace(workspace, { pattern: "find" }, small)).toMatchObject({
      truncated: true,
      matches: [expect.any(String)],
    });
  });
});
