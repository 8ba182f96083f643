import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  createReadTools,
  listWorkspaceFiles,
  readWorkspaceFile,
  searchWorkspace,
  type Workspace,
} from "@coding-agent/tools";
import { createConfinedWorkspace } from "@lab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLayout, type Layout, SECRET } from "./layout.ts";

let layout: Layout;
let workspace: Workspace;

beforeAll(async () => {
  layout = await createLayout();
  workspace = createConfinedWorkspace(layout.workspace);
});
afterAll(() => layout.remove());

/** Runs a tool call; a throw becomes a value, so the failure names what happened. */
async function attempt(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    return `抛出了异常：${String(error)}`;
  }
}

/** What a tool call answered, in a few words: the failure shows the learner's answer. */
function answered(result: unknown): string {
  if (typeof result === "string") return result;
  const code = (result as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (typeof code === "string") return `错误 ${code}`;
  return `成功（${JSON.stringify(result).slice(0, 40)}…）`;
}

/** Paths a model may send that lead outside; every one must be refused. */
const ESCAPES: ReadonlyArray<readonly [name: string, path: (l: Layout) => string]> = [
  ["a path climbing out with ..", () => "../outside/secret.txt"],
  [".. in the middle of a path", () => "src/../../outside/secret.txt"],
  ["an absolute path outside", (l) => join(l.outside, "secret.txt")],
  ["a symlink inside pointing to a file outside", () => "link-out"],
  ["a file under a symlinked parent folder", () => "dir-out/secret.txt"],
  ["a missing file under a symlinked parent folder", () => "dir-out/new.txt"],
  ["a dangling symlink pointing outside", () => "dangling-out"],
  ["a chain of symlinks whose last link dangles outside", () => "chain-1"],
  ["a symlink loop (where it leads cannot be known)", () => "loop-a"],
  ["a symlink into a sibling folder whose name starts like the workspace's", () => "link-sibling"],
  ["a NUL byte", () => "notes.txt\0../outside/secret.txt"],
  ["Windows-style ..\\ separators", () => "..\\outside\\secret.txt"],
  ["Windows-style ..\\ after a folder", () => "src\\..\\..\\outside\\secret.txt"],
  ["a Windows drive path", () => "C:\\Windows\\win.ini"],
];

describe("read_file through the confined workspace", () => {
  it.each(ESCAPES)("refuses %s with path_outside_workspace", async (_name, path) => {
    const result = await attempt(() => readWorkspaceFile(workspace, { path: path(layout) }));
    expect(JSON.stringify(result), "工作区外的秘密出现在了结果里").not.toContain(SECRET);
    expect(
      result,
      `应当以 path_outside_workspace 拒绝，你的实现答的是${answered(result)}`,
    ).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });

  it.each([
    ["a relative path", () => "notes.txt"],
    ["a ./ path", () => "./notes.txt"],
    [".. that stays inside", () => "src/../notes.txt"],
    ["an absolute path inside", (l: Layout) => join(l.workspace, "notes.txt")],
    ["a symlink that stays inside", () => "link-in"],
    ["a path through a symlinked folder that stays inside", () => "dir-in/../notes.txt"],
    ["Windows-style separators inside", () => "src\\..\\notes.txt"],
  ])("accepts %s and reads the file", async (_name, path) => {
    const result = await attempt(() => readWorkspaceFile(workspace, { path: path(layout) }));
    expect(result, `应当读到文件，你的实现答的是${answered(result)}`).toMatchObject({
      content: "第一行\nsecond line",
      totalLines: 2,
    });
  });

  it("answers a missing file inside with not_found, not with a refusal", async () => {
    const result = await attempt(() => readWorkspaceFile(workspace, { path: "src/missing.ts" }));
    expect(result).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("resolves a missing file under a symlinked folder inside to its real place", async () => {
    expect(await attempt(() => workspace.resolve("dir-in/new.ts"))).toEqual({
      ok: true,
      absolute: join(layout.workspace, "src", "new.ts"),
      relative: "src/new.ts",
      exists: false,
    });
  });

  it("works when the workspace folder itself is reached through a symlink", async () => {
    const alias = join(layout.base, "ws-alias");
    await symlink(layout.workspace, alias);
    const viaAlias = createConfinedWorkspace(alias);
    const read = await attempt(() => readWorkspaceFile(viaAlias, { path: "notes.txt" }));
    expect(
      read,
      `经过链接到达的工作区，里面的文件也要能读，你的实现答的是${answered(read)}`,
    ).toMatchObject({ totalLines: 2 });
    const outside = await attempt(() => readWorkspaceFile(viaAlias, { path: "link-out" }));
    expect(outside).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });
});

describe("list_files and search through the confined workspace", () => {
  it.each([
    ["a symlinked folder leading outside", "dir-out"],
    ["..", ".."],
    ["Windows-style ..\\", "src\\..\\.."],
  ])("list_files refuses %s", async (_name, path) => {
    const result = await attempt(() => listWorkspaceFiles(workspace, { path }));
    expect(JSON.stringify(result), "工作区外的文件名出现在了结果里").not.toContain("secret");
    expect(
      result,
      `应当以 path_outside_workspace 拒绝，你的实现答的是${answered(result)}`,
    ).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });

  it("search refuses a symlinked folder leading outside", async () => {
    const result = await attempt(() =>
      searchWorkspace(workspace, { pattern: "S", path: "dir-out" }),
    );
    expect(JSON.stringify(result), "工作区外的秘密出现在了结果里").not.toContain(SECRET);
    expect(
      result,
      `应当以 path_outside_workspace 拒绝，你的实现答的是${answered(result)}`,
    ).toMatchObject({ ok: false, error: { code: "path_outside_workspace" } });
  });

  it("lists the root without .git/, node_modules/ or anything behind a symlink", async () => {
    const result = await attempt(() => listWorkspaceFiles(workspace, {}));
    expect(result).toMatchObject({ truncated: false });
    const files = (result as { files: string[] }).files;
    expect(files).toEqual(expect.arrayContaining(["notes.txt", "src/a.ts", "image.bin"]));
    expect(files.filter((file) => /\.git\/|node_modules\/|secret|x\.txt/.test(file))).toEqual([]);
  });

  it("searches text files only, as path:line:text, skipping binary files and excluded folders", async () => {
    const result = await attempt(() => searchWorkspace(workspace, { pattern: "find me" }));
    expect(result).toEqual({
      matches: ["src/a.ts:1:export const a = 1; // find me"],
      truncated: false,
    });
  });
});

describe("the confined read tools inside runAgent", () => {
  it("writes each refusal back as an observation, and the secret never reaches the model", async () => {
    const read = (path: string) => ({
      action: { type: "tool_call", tool: "read_file", input: { path } },
    });
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "list_files", input: { pattern: "*.txt" } } },
      read("dir-out/secret.txt"),
      read("..\\outside\\secret.txt"),
      read("notes.txt"),
      { action: { type: "finish", summary: "读完了 notes.txt" } },
    ]);
    const result = await runAgent("看看工作区里有什么", provider, createReadTools(workspace), {
      maxSteps: 10,
    });
    expect(JSON.stringify(result), "工作区外的秘密进入了运行的历史").not.toContain(SECRET);
    expect(result.status).toBe("completed");
    const observations = result.messages.filter((message) => message.role === "tool");
    expect(observations.map((message) => ("content" in message ? message.content : ""))).toEqual([
      expect.stringContaining("notes.txt"),
      expect.stringContaining("path_outside_workspace"),
      expect.stringContaining("path_outside_workspace"),
      expect.stringContaining("第一行"),
    ]);
  });
});
