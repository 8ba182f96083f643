import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { z } from "zod";
import type { Workspace } from "../workspace.ts";
import type { PathAllowance } from "./allow-path.ts";
import { type LocateText, replaceExactlyOnce } from "./text-edit.ts";

const HashSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "expectedHash 要写 read_file 返回的 hash（64 位十六进制）");

/** `edit_file`'s input (docs/contracts.md §6): replace the exact text `old`, which must occur once. */
export const EditFileInputSchema = z.strictObject({
  path: z.string().min(1, "path 不能为空"),
  old: z.string().min(1, "old 不能为空：新建文件请用 write_file"),
  new: z.string(),
  expectedHash: HashSchema.optional(),
});
export type EditFileInput = z.output<typeof EditFileInputSchema>;

/** `write_file`'s input (docs/contracts.md §6): the file's whole new content. */
export const WriteFileInputSchema = z.strictObject({
  path: z.string().min(1, "path 不能为空"),
  content: z.string(),
  expectedHash: HashSchema.optional(),
});
export type WriteFileInput = z.output<typeof WriteFileInputSchema>;

/** One edit of an `apply_edits` call: an `edit_file` or a `write_file` input. */
export type EditInput = EditFileInput | WriteFileInput;

/** What one file will become. `before` is null for a file that does not exist yet. */
export interface FileChange {
  readonly absolute: string;
  /** Relative to the workspace root, `/` separators. */
  readonly relative: string;
  readonly before: Buffer | null;
  readonly after: Buffer;
  /** The existing file's mode, kept by the write. */
  readonly mode?: number;
}

/** A file an edit touched: its path and the hash of the bytes it will hold. */
export interface PlannedFile {
  readonly path: string;
  readonly hash: string;
  /** True when the file did not exist before. */
  readonly created: boolean;
}

/** Files larger than this are not edited (generated or data files). */
export const MAX_EDIT_FILE_BYTES = 5_000_000;

/** What planning needs: the workspace, the `--allow-path` check. */
export interface PlanContext {
  readonly workspace: Workspace;
  readonly allowance: PathAllowance;
  /** Finds `old` in a file; default `locateExactlyOnce`. */
  readonly locate?: LocateText;
}

/** sha256 of bytes, hex: the same hash `read_file` reports. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

interface FileState {
  readonly relative: string;
  readonly before: Buffer | null;
  readonly mode?: number;
  current: Buffer | null;
}

/**
 * Works out what `edits` would do, in order, without writing anything: later edits
 * of the same file apply to what earlier ones made of it, and every `expectedHash`
 * is compared with the file as it is on disk now (what `read_file` reported).
 * Returns the files whose bytes change (`changes`) and every file touched with its
 * new hash (`files`), or the first edit's error (prefixed with
 * its index when there are several). Nothing is written either way.
 */
export async function planChanges(
  context: PlanContext,
  edits: readonly EditInput[],
): Promise<
  | { readonly ok: true; readonly changes: FileChange[]; readonly files: PlannedFile[] }
  | ToolErrorResult
> {
  const files = new Map<string, FileState>();
  for (const [index, edit] of edits.entries()) {
    const outcome = await planOne(context, files, edit);
    if (outcome !== undefined) {
      if (edits.length === 1) return outcome;
      const { code, message } = outcome.error;
      return toolError(
        code,
        `第 ${index + 1} 个编辑（${edit.path}）：${message}；没有写入任何文件`,
      );
    }
  }
  const changes: FileChange[] = [];
  const planned: PlannedFile[] = [];
  for (const [absolute, state] of files) {
    if (state.current === null) continue;
    planned.push({
      path: state.relative,
      hash: hashBytes(state.current),
      created: state.before === null,
    });
    if (state.before?.equals(state.current)) continue;
    changes.push({
      absolute,
      relative: state.relative,
      before: state.before,
      after: state.current,
      ...(state.mode === undefined ? {} : { mode: state.mode }),
    });
  }
  return { ok: true, changes, files: planned };
}

/** Applies one edit to the planned state; returns its error, if any. */
async function planOne(
  context: PlanContext,
  files: Map<string, FileState>,
  edit: EditInput,
): Promise<ToolErrorResult | undefined> {
  const target = await resolveWritable(context, edit.path);
  if (!target.ok) return target;
  let state = files.get(target.absolute);
  if (state === undefined) {
    const loaded = await loadFile(target.absolute, target.relative);
    if (!loaded.ok) return loaded;
    state = { relative: target.relative, ...loaded.state };
    files.set(target.absolute, state);
  }
  if (edit.expectedHash !== undefined) {
    if (state.before === null)
      return toolError("stale_file", `${state.relative} 已不存在（读取之后被删除了）`);
    const hash = hashBytes(state.before);
    if (hash !== edit.expectedHash.toLowerCase())
      return toolError(
        "stale_file",
        `${state.relative} 在读取之后被改过（当前 hash ${hash}），请先重新 read_file`,
      );
  }
  if ("content" in edit) {
    state.current = Buffer.from(edit.content, "utf8");
    return undefined;
  }
  if (state.current === null) return toolError("not_found", `文件不存在：${state.relative}`);
  const text = state.current.toString("utf8");
  // Decoding must round-trip, or writing the text back would change bytes nobody edited.
  if (!Buffer.from(text, "utf8").equals(state.current))
    return toolError("invalid_input", `${state.relative} 不是 UTF-8 文本，不能按文本编辑`);
  const replaced = replaceExactlyOnce(text, edit.old, edit.new, context.locate);
  if (!replaced.ok) {
    switch (replaced.reason) {
      case "not_found_text":
        return toolError(
          "not_found_text",
          `${state.relative} 中找不到 old 给出的文本（须逐字一致）`,
        );
      case "not_unique":
        return toolError(
          "not_unique",
          `old 在 ${state.relative} 中出现 ${replaced.lines.length} 次（第 ${replaced.lines.join("、")} 行），请多带几行上下文使它唯一`,
        );
      default: {
        const unreachable: never = replaced;
        throw new TypeError(`unhandled edit outcome ${JSON.stringify(unreachable)}`);
      }
    }
  }
  state.current = Buffer.from(replaced.text, "utf8");
  return undefined;
}

type Writable =
  | { readonly ok: true; readonly absolute: string; readonly relative: string }
  | ToolErrorResult;

/**
 * Resolves a path an edit may write: inside the workspace once every symlink is
 * followed (`workspace.resolve` also follows a missing file's folders and dangling
 * links to where the bytes would land), and allowed by `--allow-path` there.
 */
async function resolveWritable(context: PlanContext, requested: string): Promise<Writable> {
  const target = await context.workspace.resolve(requested);
  if (!target.ok) return target;
  if (target.relative === ".") return toolError("is_directory", "工作区根目录不是文件");
  if (!context.allowance(target.relative))
    return toolError(
      "path_not_allowed",
      `不允许修改 ${target.relative}：不在 --allow-path 之内（.git/、node_modules/ 和 Agent 自己的配置——.coding-agent/、.mcp.json、hooks 与 MCP 服务器运行的脚本——从不可写）`,
    );
  return { ok: true, absolute: target.absolute, relative: target.relative };
}

type Loaded = { readonly ok: true; readonly state: Omit<FileState, "relative"> } | ToolErrorResult;

/** Reads a file's bytes and mode before an edit; a missing file loads as null. */
async function loadFile(absolute: string, relative: string): Promise<Loaded> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: true, state: { before: null, current: null } };
    if (code === "EISDIR") return toolError("is_directory", `是目录，不是文件：${relative}`);
    if (code === "ELOOP") return toolError("invalid_input", `是符号链接，不能编辑：${relative}`);
    if (code === "ENOTDIR")
      return toolError("invalid_input", `路径中有一段是文件而不是目录：${relative}`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return toolError("is_directory", `是目录，不是文件：${relative}`);
    if (!stats.isFile()) return toolError("invalid_input", `不是普通文件：${relative}`);
    if (stats.size > MAX_EDIT_FILE_BYTES)
      return toolError("invalid_input", `${relative} 超过 ${MAX_EDIT_FILE_BYTES} 字节，不编辑`);
    const before = await handle.readFile();
    return { ok: true, state: { before, current: before, mode: stats.mode } };
  } finally {
    await handle.close();
  }
}
