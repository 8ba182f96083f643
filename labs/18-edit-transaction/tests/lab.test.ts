import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import {
  createEditTools,
  createReadTools,
  createWorkspace,
  type FileOps,
  NODE_FILE_OPS,
  RollbackError,
  type WrittenChange,
  workspaceVersion,
} from "@coding-agent/tools";
import { rollBack } from "@lab";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "lab-18-")));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const at = (...parts: string[]) => join(dir, ...parts);

/** Every file under `dir` with its bytes (hex) and permission bits, and every folder. */
async function snapshot(): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name);
    const key = full.slice(dir.length + 1);
    if (entry.isDirectory()) tree[`${key}/`] = "dir";
    else {
      const mode = ((await stat(full)).mode & 0o777).toString(8);
      tree[key] = `${mode} ${(await readFile(full)).toString("hex")}`;
    }
  }
  return tree;
}

/** A snapshot entry as a learner reads it: permission bits and text (hex when not text). */
function shown(entry: string): string {
  if (entry === "dir") return "文件夹";
  const [mode, hex = ""] = entry.split(" ");
  const bytes = Buffer.from(hex, "hex");
  const text = bytes.toString("utf8");
  const content = Buffer.from(text, "utf8").equals(bytes) ? JSON.stringify(text) : `0x${hex}`;
  return `权限 ${mode}，内容 ${content}`;
}

/**
 * How the workspace now differs from the snapshot taken before the transaction, in one
 * line: what a failed comparison shows the learner instead of `{ …(3) }`.
 */
function drift(before: Record<string, string>, now: Record<string, string>): string {
  const lines: string[] = [];
  for (const key of Object.keys(now).sort()) {
    const entry = now[key] ?? "";
    const old = before[key];
    if (old === undefined) lines.push(`多出了 ${key}`);
    else if (old !== entry) {
      const [mode] = entry.split(" ");
      const [oldMode] = old.split(" ");
      if (mode !== oldMode && old.slice(oldMode?.length) === entry.slice(mode?.length)) {
        lines.push(`${key} 的权限变了（现在 ${mode}，写之前 ${oldMode}）`);
      } else lines.push(`${key} 现在是${shown(entry)}；写之前是${shown(old)}`);
    }
  }
  for (const key of Object.keys(before).sort()) if (!(key in now)) lines.push(`${key} 不见了`);
  return lines.length === 0 ? "与写之前相同" : lines.join("；");
}

/** The snapshot equals `before`; a failure says, in its first line, what still differs. */
async function expectUnchanged(before: Record<string, string>, what: string): Promise<void> {
  const now = await snapshot();
  expect(now, `${what}：${drift(before, now)}`).toEqual(before);
}

/** What the forward write of a transaction did: `after` written over (or in place of) `before`. */
async function wrote(
  relative: string,
  after: string | Buffer,
  createdDirs: string[] = [],
): Promise<WrittenChange> {
  const absolute = at(relative);
  const existed = await stat(absolute).catch(() => undefined);
  const before = existed ? await readFile(absolute) : null;
  const mode = existed ? existed.mode : undefined;
  for (const folder of createdDirs) await mkdir(folder);
  await NODE_FILE_OPS.writeAtomic(absolute, Buffer.from(after), mode);
  return {
    change: {
      absolute,
      relative,
      before,
      after: Buffer.from(after),
      ...(mode === undefined ? {} : { mode }),
    },
    createdDirs,
  };
}

describe("rollBack", () => {
  it("gives every file already written its exact previous bytes back", async () => {
    await writeFile(at("a.ts"), "export const a = 1;\r\n");
    await writeFile(at("bin.dat"), Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x80]));
    await writeFile(at("c.ts"), "export const c = 1;\n");
    const before = await snapshot();
    const written = [
      await wrote("a.ts", "export const a = 2;\r\n"),
      await wrote("bin.dat", "text now"),
      await wrote("c.ts", "export const c = 2;\n"),
    ];
    await rollBack(written, NODE_FILE_OPS);
    await expectUnchanged(before, "三个文件都应当回到写之前的字节");
  });

  it("gives a file its permission bits back, not the default ones", async () => {
    await writeFile(at("run.sh"), "#!/bin/sh\necho 1\n");
    await chmod(at("run.sh"), 0o750);
    const before = await snapshot();
    const written = [await wrote("run.sh", "#!/bin/sh\necho 2\n")];
    await rollBack(written, NODE_FILE_OPS);
    await expectUnchanged(before, "run.sh 应当仍是 750");
  });

  it("removes the files the transaction created, and the folders made for them", async () => {
    await writeFile(at("keep.txt"), "keep\n");
    const before = await snapshot();
    const written = [
      await wrote("keep.txt", "changed\n"),
      await wrote("made/deep/new.ts", "new\n", [at("made"), at("made", "deep")]),
      await wrote("made/other.ts", "other\n"),
    ];
    await rollBack(written, NODE_FILE_OPS);
    await expectUnchanged(before, "新建的文件与文件夹都应当不见");
  });

  it("is fine with a created file whose write never landed: gone already is not an error", async () => {
    await writeFile(at("a.ts"), "a = 1\n");
    const before = await snapshot();
    const first = await wrote("a.ts", "a = 2\n");
    // The second write failed before the file existed.
    const never: WrittenChange = {
      change: { absolute: at("new.ts"), relative: "new.ts", before: null, after: Buffer.from("x") },
      createdDirs: [],
    };
    await expect(
      rollBack([first, never], NODE_FILE_OPS),
      "没建出来的文件不算恢复失败",
    ).resolves.toBeUndefined();
    await expectUnchanged(before, "a.ts 应当被恢复");
  });

  it("does not stop at a restore that fails: restores the rest, then throws RollbackError naming the file", async () => {
    await writeFile(at("a.ts"), "a = 1\n");
    await writeFile(at("b.ts"), "b = 1\n");
    await writeFile(at("c.ts"), "c = 1\n");
    const written = [
      await wrote("a.ts", "a = 2\n"),
      await wrote("b.ts", "b = 2\n"),
      await wrote("c.ts", "c = 2\n"),
    ];
    const brokenForB: FileOps = {
      remove: NODE_FILE_OPS.remove,
      async writeAtomic(absolute, bytes, mode) {
        if (absolute.endsWith("b.ts")) throw new Error("disk gone (simulated)");
        await NODE_FILE_OPS.writeAtomic(absolute, bytes, mode);
      },
    };
    const outcome = rollBack(written, brokenForB);
    await expect(outcome, "恢复失败必须抛出 RollbackError").rejects.toThrow(RollbackError);
    await expect(outcome, "错误里要写明没恢复的文件").rejects.toThrow(/b\.ts/);
    expect(await readFile(at("a.ts"), "utf8"), "b.ts 失败后 a.ts 仍要恢复").toBe("a = 1\n");
    expect(await readFile(at("c.ts"), "utf8"), "c.ts 要恢复").toBe("c = 1\n");
  });
});

/** Fails the first write to a path ending in `suffix`; every other write lands. */
function failOnceOn(suffix: string): FileOps {
  let failed = false;
  return {
    remove: NODE_FILE_OPS.remove,
    async writeAtomic(absolute, bytes, mode) {
      if (!failed && absolute.endsWith(suffix)) {
        failed = true;
        throw new Error("disk full (simulated)");
      }
      await NODE_FILE_OPS.writeAtomic(absolute, bytes, mode);
    },
  };
}

/** The real read_file and apply_edits of a workspace in `dir`, rolling back with your rollBack. */
function realTools(fileOps: FileOps, allowPaths: string[] = []) {
  const workspace = createWorkspace(dir);
  return {
    ...createReadTools(workspace),
    ...createEditTools({ workspace, approval: "auto", fileOps, rollBack, allowPaths }),
  };
}

const applyEdits = (edits: unknown[]) => ({
  action: { type: "tool_call", tool: "apply_edits", input: { edits } },
});
const finish = { action: { type: "finish", summary: "改好了" } };

async function run(script: unknown[], fileOps: FileOps, allowPaths: string[] = []) {
  const tools = realTools(fileOps, allowPaths);
  return runAgent("修改文件", createScriptedProvider(script as never), tools, {
    maxSteps: 8,
  });
}

// Real files in a temp folder: the timeout only turns a hang into a failure.
describe("your rollBack inside the real apply_edits and runAgent", { timeout: 30_000 }, () => {
  it("a write failing midway leaves every file as it was: bytes, mode, no created file or folder, same version", async () => {
    await mkdir(at("src"));
    await writeFile(at("src", "a.ts"), "export const a = 1;\n");
    await chmod(at("src", "a.ts"), 0o700);
    await writeFile(at("notes.txt"), "notes\r\n");
    const before = await snapshot();
    const version = await workspaceVersion(createWorkspace(dir));
    const result = await run(
      [
        applyEdits([
          { path: "src/a.ts", old: "a = 1", new: "a = 2" },
          { path: "notes.txt", content: "notes changed\n" },
          { path: "made/deep/new.ts", content: "fails here\n" },
        ]),
        finish,
      ],
      failOnceOn("new.ts"),
    );
    expect(result.status, "写失败是给模型的观察，运行继续").toBe("completed");
    const [observation] = result.messages.filter((message) => message.role === "tool");
    expect(observation, "模型应当得知写入失败、已回滚").toMatchObject({
      ok: false,
      error: { code: "write_failed", message: expect.stringContaining("已回滚") },
    });
    await expectUnchanged(before, "工作区应当与之前逐字节相同");
    expect(await workspaceVersion(createWorkspace(dir)), "工作区版本不变").toBe(version);
  });

  it("after a rollback the same edits succeed on retry, and only then the version changes", async () => {
    await writeFile(at("a.ts"), "a = 1\n");
    await writeFile(at("b.ts"), "b = 1\n");
    const version = await workspaceVersion(createWorkspace(dir));
    const edits = [
      { path: "a.ts", old: "a = 1", new: "a = 2" },
      { path: "b.ts", old: "b = 1", new: "b = 2" },
    ];
    const result = await run([applyEdits(edits), applyEdits(edits), finish], failOnceOn("b.ts"));
    const [first, second] = result.messages.filter((message) => message.role === "tool");
    expect(first, "第一次写 b.ts 失败").toMatchObject({
      ok: false,
      error: { code: "write_failed" },
    });
    expect(
      second,
      `回滚干净，第二次才能原样成功（a.ts 里仍是 a = 1）；第二次 apply_edits 的观察是 ${String(second?.content)}`,
    ).toMatchObject({ ok: true });
    const now = await workspaceVersion(createWorkspace(dir));
    expect(now, "内容变了，版本也要变").not.toBe(version);
    expect(JSON.parse(String(second?.content)), "apply_edits 报告的是写后的版本").toMatchObject({
      version: now,
    });
    expect(await readFile(at("a.ts"), "utf8")).toBe("a = 2\n");
    expect(await readFile(at("b.ts"), "utf8")).toBe("b = 2\n");
  });

  it("an edit that cannot apply, or lies outside --allow-path, is refused before any write: nothing to roll back", async () => {
    await mkdir(at("src"));
    await writeFile(at("src", "a.ts"), "a = 1\n");
    await writeFile(at("package.json"), "{}\n");
    const before = await snapshot();
    const result = await run(
      [
        applyEdits([
          { path: "src/a.ts", old: "a = 1", new: "a = 2" },
          { path: "src/a.ts", old: "no such text", new: "x" },
        ]),
        applyEdits([
          { path: "src/a.ts", old: "a = 1", new: "a = 2" },
          { path: "package.json", content: '{ "scripts": {} }\n' },
        ]),
        finish,
      ],
      NODE_FILE_OPS,
      ["src/**"],
    );
    const [missing, outside] = result.messages.filter((message) => message.role === "tool");
    expect(missing, "第 2 个编辑找不到文本").toMatchObject({
      ok: false,
      error: { code: "not_found_text" },
    });
    expect(outside, "package.json 不在 --allow-path 里").toMatchObject({
      ok: false,
      error: { code: "path_not_allowed" },
    });
    await expectUnchanged(before, "一个字节都不该写");
  });
});
