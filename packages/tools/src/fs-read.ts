import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { glob } from "tinyglobby";
import { z } from "zod";
import type { Workspace } from "./workspace.ts";

/** Bounds on what the read tools return, so one call cannot flood the model's context. */
export interface ReadLimits {
  /** Characters of `content` returned by one `read_file`. */
  readonly maxContentChars: number;
  /** Bytes of a file scanned for content (the hash always covers the whole file). */
  readonly maxScanBytes: number;
  /** Paths returned by one `list_files`. */
  readonly maxEntries: number;
  /** Matches returned by one `search`. */
  readonly maxMatches: number;
  /** Characters of each matching line in `search`. */
  readonly maxLineChars: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxContentChars: 50_000,
  maxScanBytes: 2_000_000,
  maxEntries: 1_000,
  maxMatches: 200,
  maxLineChars: 300,
};

/** Folders never listed or searched: tool noise and a repository's internals. */
export const EXCLUDED_DIRS = [".git", "node_modules"] as const;

/** What `read_file` returns (design §6). `binary` files are reported, not dumped. */
export interface ReadFileResult {
  readonly content: string;
  /** sha256 of the file's bytes, hex; what week 4's `expectedHash` takes. */
  readonly hash: string;
  readonly totalLines: number;
  readonly truncated: boolean;
  readonly binary?: true;
  readonly bytes?: number;
}

export const ReadFileInputSchema = z
  .object({
    path: z.string().min(1, "path 不能为空"),
    startLine: z.int().min(1).optional(),
    endLine: z.int().min(1).optional(),
  })
  .refine((input) => (input.startLine ?? 1) <= (input.endLine ?? Number.POSITIVE_INFINITY), {
    message: "startLine 不能大于 endLine",
    path: ["startLine"],
  });

export type ReadFileInput = z.output<typeof ReadFileInputSchema>;

/** Reads a text file inside the workspace, optionally a line range (1-based, inclusive). */
export async function readWorkspaceFile(
  workspace: Workspace,
  input: ReadFileInput,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
): Promise<ReadFileResult | ToolErrorResult> {
  const target = await workspace.resolve(input.path);
  if (!target.ok) return target;
  if (!target.exists) return toolError("not_found", `文件不存在：${target.relative}`);
  const stats = await lstat(target.absolute);
  if (stats.isDirectory()) return toolError("is_directory", `是目录，不是文件：${target.relative}`);
  // A FIFO or device would block or never end: only regular files are read.
  if (!stats.isFile()) return toolError("invalid_input", `不是普通文件：${target.relative}`);

  const scanned = await scanFile(target.absolute, limits.maxScanBytes);
  if (scanned.binary) {
    return {
      content: "",
      hash: scanned.hash,
      totalLines: scanned.totalLines,
      truncated: false,
      binary: true,
      bytes: scanned.bytes,
    };
  }
  const lines = scanned.text.split("\n");
  if (scanned.text.endsWith("\n")) lines.pop();
  const start = (input.startLine ?? 1) - 1;
  const end = input.endLine ?? scanned.totalLines;
  const wanted = lines.slice(start, end);
  let content = wanted.join("\n");
  // The range ran past what was scanned: say so rather than pretend the file ended there.
  let truncated = end > lines.length && scanned.totalLines > lines.length;
  if (content.length > limits.maxContentChars) {
    const cut = content.lastIndexOf("\n", limits.maxContentChars);
    content = content.slice(0, cut > 0 ? cut : limits.maxContentChars);
    truncated = true;
  }
  return { content, hash: scanned.hash, totalLines: scanned.totalLines, truncated };
}

interface Scan {
  readonly hash: string;
  readonly totalLines: number;
  readonly bytes: number;
  readonly binary: boolean;
  /** The first `maxScanBytes` bytes as text (empty for a binary file). */
  readonly text: string;
}

/**
 * Hashes the whole file and keeps its head for content. Opened without following a
 * final symlink, so a link swapped in after the check is refused by the kernel.
 */
async function scanFile(absolute: string, maxScanBytes: number): Promise<Scan> {
  const handle = await open(
    absolute,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  );
  try {
    const hash = createHash("sha256");
    const buffer = Buffer.alloc(64 * 1024);
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bytes = 0;
    let newlines = 0;
    let lastByte = -1;
    let binary = false;
    while (true) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      // git's rule: a NUL byte in the first 8,000 bytes means binary.
      if (bytes < 8_000 && chunk.subarray(0, 8_000 - bytes).includes(0)) binary = true;
      for (const byte of chunk) if (byte === 10) newlines++;
      lastByte = chunk[bytesRead - 1] ?? lastByte;
      if (keptBytes < maxScanBytes) {
        const part = Buffer.from(chunk.subarray(0, maxScanBytes - keptBytes));
        kept.push(part);
        keptBytes += part.length;
      }
      bytes += bytesRead;
    }
    const totalLines = bytes === 0 ? 0 : newlines + (lastByte === 10 ? 0 : 1);
    const text = binary ? "" : Buffer.concat(kept).toString("utf8");
    return { hash: hash.digest("hex"), totalLines, bytes, binary, text };
  } finally {
    await handle.close();
  }
}

/** What `list_files` returns: paths relative to the workspace root. */
export interface ListFilesResult {
  readonly files: readonly string[];
  readonly truncated: boolean;
}

export const ListFilesInputSchema = z.object({
  path: z.string().min(1).optional(),
  pattern: z.string().min(1).optional(),
});

/** Lists files under `path` (default the root) matching `pattern` (a glob, default all). */
export async function listWorkspaceFiles(
  workspace: Workspace,
  input: z.output<typeof ListFilesInputSchema>,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
): Promise<ListFilesResult | ToolErrorResult> {
  const found = await findFiles(workspace, input.path, input.pattern);
  if (!found.ok) return found;
  const truncated = found.files.length > limits.maxEntries;
  return { files: found.files.slice(0, limits.maxEntries), truncated };
}

/**
 * Files below a folder of the workspace, relative to the root, sorted. Never follows a
 * symlinked folder and leaves out `.git/` and `node_modules/`. A glob that climbs
 * (`..`) or is absolute is refused: the glob library would happily walk there.
 */
export async function findFiles(
  workspace: Workspace,
  folder: string | undefined,
  pattern: string | undefined,
): Promise<{ ok: true; files: string[] } | ToolErrorResult> {
  const glob_ = pattern ?? "**/*";
  if (glob_.includes("..") || glob_.startsWith("/") || glob_.includes("\\") || glob_.includes("\0"))
    return toolError(
      "invalid_input",
      `pattern 不能含 ..、\\ 或以 / 开头：${JSON.stringify(glob_)}`,
    );
  const base = await workspace.resolve(folder ?? ".");
  if (!base.ok) return base;
  if (!base.exists) return toolError("not_found", `目录不存在：${base.relative}`);
  if (!(await lstat(base.absolute)).isDirectory())
    return toolError("invalid_input", `不是目录：${base.relative}`);
  const matches = await glob(glob_, {
    cwd: base.absolute,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: EXCLUDED_DIRS.flatMap((dir) => [`${dir}/**`, `**/${dir}/**`]),
  });
  const prefix = base.relative === "." ? "" : `${base.relative}/`;
  const files = matches.map((match) => `${prefix}${match}`).sort();
  // Left out even when `path` itself names a folder inside one of them.
  return {
    ok: true,
    files: files.filter((file) => !file.split("/").some((part) => isExcluded(part))),
  };
}

/**
 * Compared without case: on a case-insensitive filesystem (macOS, Windows) `.GIT/` and
 * `Node_Modules/` are the very same folders, and the glob's ignore list is case-sensitive.
 */
function isExcluded(part: string): boolean {
  return (EXCLUDED_DIRS as readonly string[]).includes(part.toLowerCase());
}
