import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open } from "node:fs/promises";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { glob } from "tinyglobby";
import { z } from "zod";
import {
  fitsBudget,
  isHighSurrogate,
  largestFitting,
  type ObservationBudget,
  observationBudget,
} from "./observation-budget.ts";
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

/**
 * What `read_file` returns (docs/contracts.md §6). `binary` files are reported, not dumped. When
 * `truncated`, `nextStartLine` (and, inside a line longer than the budget,
 * `nextStartColumn`) is the input of the call that reads on.
 */
export interface ReadFileResult {
  readonly content: string;
  /** sha256 of the file's bytes, hex; what week 4's `expectedHash` takes. */
  readonly hash: string;
  readonly totalLines: number;
  readonly truncated: boolean;
  /** The first line not in `content` (1-based): the next call's `startLine`. */
  readonly nextStartLine?: number;
  /** Set when `content` ends inside line `nextStartLine`: the next call's `startColumn`. */
  readonly nextStartColumn?: number;
  readonly binary?: true;
  readonly bytes?: number;
}

export const ReadFileInputSchema = z
  .object({
    path: z.string().min(1, "path 不能为空"),
    startLine: z.int().min(1).optional(),
    endLine: z.int().min(1).optional(),
    /** 1-based character column of `startLine` to start at: paging inside a very long line. */
    startColumn: z.int().min(1).optional(),
  })
  .refine((input) => (input.startLine ?? 1) <= (input.endLine ?? Number.POSITIVE_INFINITY), {
    message: "startLine 不能大于 endLine",
    path: ["startLine"],
  });

export type ReadFileInput = z.output<typeof ReadFileInputSchema>;

/**
 * Reads a text file inside the workspace, optionally a line range (1-based, inclusive).
 * The content is whole lines, as many as fit `budget` once the result is serialized
 * for the model (and `limits.maxContentChars`); the rest is left for the call that
 * `nextStartLine` describes. A single line longer than the budget is cut at a
 * character and continued with `nextStartColumn`, so every file can be read to its end.
 */
export async function readWorkspaceFile(
  workspace: Workspace,
  input: ReadFileInput,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  budget: ObservationBudget = observationBudget(),
): Promise<ReadFileResult | ToolErrorResult> {
  const target = await workspace.resolve(input.path);
  if (!target.ok) return target;
  if (!target.exists) return toolError("not_found", `文件不存在：${target.relative}`);
  const stats = await lstat(target.absolute);
  if (stats.isDirectory()) return toolError("is_directory", `是目录，不是文件：${target.relative}`);
  // A FIFO or device would block or never end: only regular files are read.
  if (!stats.isFile()) return toolError("invalid_input", `不是普通文件：${target.relative}`);

  const startLine = input.startLine ?? 1;
  const startColumn = input.startColumn ?? 1;
  // Enough bytes from the start line for any page: a character is at most 4 bytes.
  const windowBytes = Math.max(limits.maxScanBytes, 4 * (startColumn + limits.maxContentChars));
  const scanned = await scanFile(target.absolute, startLine, windowBytes);
  const base = { hash: scanned.hash, totalLines: scanned.totalLines };
  if (scanned.binary)
    return { content: "", ...base, truncated: false, binary: true, bytes: scanned.bytes };

  const lines = scanned.text.split("\n");
  if (scanned.text.endsWith("\n") || scanned.text === "") lines.pop();
  // A window that stopped before the end of the file may end inside a line: only lines
  // seen whole count, unless the start line itself is longer than the window.
  if (scanned.cut && lines.length > 1) lines.pop();
  const lastLine = Math.min(input.endLine ?? scanned.totalLines, scanned.totalLines);
  const wanted = lines.slice(0, Math.max(0, lastLine - startLine + 1));
  if (wanted[0] !== undefined) wanted[0] = wanted[0].slice(startColumn - 1);
  // Lines past the scanned window count too: the next call reads them.
  const lineCount = Math.max(0, lastLine - startLine + 1);

  const page = (lineTotal: number, columnCut?: number): ReadFileResult => {
    const shown =
      columnCut === undefined
        ? wanted.slice(0, lineTotal)
        : [(wanted[0] ?? "").slice(0, columnCut)];
    const content = shown.join("\n");
    if (columnCut !== undefined)
      return {
        content,
        ...base,
        truncated: true,
        nextStartLine: startLine,
        nextStartColumn: startColumn + columnCut,
      };
    if (lineTotal >= lineCount) return { content, ...base, truncated: false };
    return { content, ...base, truncated: true, nextStartLine: startLine + lineTotal };
  };
  const fits = (result: ReadFileResult) =>
    result.content.length <= limits.maxContentChars && fitsBudget(result, budget);

  // Only lines whose raw length adds up to the budget can fit: escaping only lengthens.
  let candidates = 0;
  for (let chars = 0; candidates < wanted.length; candidates++) {
    chars += (wanted[candidates]?.length ?? 0) + 1;
    if (chars > budget.maxChars) break;
  }
  const whole = largestFitting(candidates, (n) => fits(page(n)));
  if (whole > 0 || wanted.length === 0) return page(whole);
  // The first line alone is over the budget: as much of it as fits, never half a character.
  const line = wanted[0] ?? "";
  let column = largestFitting(Math.min(line.length, budget.maxChars), (n) => fits(page(0, n)));
  if (column > 0 && isHighSurrogate(line.charCodeAt(column - 1))) column -= 1;
  return page(0, Math.max(column, 1));
}

interface Scan {
  readonly hash: string;
  readonly totalLines: number;
  readonly bytes: number;
  readonly binary: boolean;
  /** Text from the start of the wanted line, at most the window (empty for a binary file). */
  readonly text: string;
  /** True when the window ended before the file did. */
  readonly cut: boolean;
}

/**
 * Hashes the whole file and keeps up to `windowBytes` bytes from the start of line
 * `startLine`. Opened without following a final symlink, so a link swapped in after the
 * check is refused by the kernel.
 */
async function scanFile(absolute: string, startLine: number, windowBytes: number): Promise<Scan> {
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
    let cut = false;
    while (true) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      // git's rule: a NUL byte in the first 8,000 bytes means binary.
      if (bytes < 8_000 && chunk.subarray(0, 8_000 - bytes).includes(0)) binary = true;
      for (let i = 0; i < chunk.length; i++) {
        // Bytes of the wanted lines start right after the (startLine - 1)th newline.
        if (newlines >= startLine - 1) {
          const room = windowBytes - keptBytes;
          if (room > 0) {
            const part = Buffer.from(chunk.subarray(i, i + room));
            kept.push(part);
            keptBytes += part.length;
            if (i + room < chunk.length) cut = true;
          } else cut = true;
          for (let j = i; j < chunk.length; j++) if (chunk[j] === 10) newlines++;
          break;
        }
        if (chunk[i] === 10) newlines++;
      }
      lastByte = chunk[bytesRead - 1] ?? lastByte;
      bytes += bytesRead;
    }
    const totalLines = bytes === 0 ? 0 : newlines + (lastByte === 10 ? 0 : 1);
    const text = binary ? "" : decodeWhole(Buffer.concat(kept), cut);
    return { hash: hash.digest("hex"), totalLines, bytes, binary, text, cut };
  } finally {
    await handle.close();
  }
}

/** UTF-8 text of `bytes`; a window cut inside a character drops that character's start. */
function decodeWhole(bytes: Buffer, cut: boolean): string {
  let end = bytes.length;
  if (cut) {
    // Back up over continuation bytes (10xxxxxx) to the start of the last character.
    let start = end - 1;
    while (start > 0 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
    const lead = bytes[start] ?? 0;
    const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (start + size > end) end = start;
  }
  return bytes.subarray(0, end).toString("utf8");
}

/**
 * What `list_files` returns: paths relative to the workspace root. When `truncated`,
 * `total` paths matched and the call with `offset: nextOffset` lists on.
 */
export interface ListFilesResult {
  readonly files: readonly string[];
  readonly truncated: boolean;
  readonly total?: number;
  readonly nextOffset?: number;
}

export const ListFilesInputSchema = z.object({
  path: z.string().min(1).optional(),
  pattern: z.string().min(1).optional(),
  /** Paths to skip, in sorted order: paging through a long listing. */
  offset: z.int().min(0).optional(),
});

/**
 * Lists files under `path` (default the root) matching `pattern` (a glob, default all),
 * from `offset` on, as many as `limits.maxEntries` and the observation budget allow.
 */
export async function listWorkspaceFiles(
  workspace: Workspace,
  input: z.output<typeof ListFilesInputSchema>,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  budget: ObservationBudget = observationBudget(),
): Promise<ListFilesResult | ToolErrorResult> {
  const found = await findFiles(workspace, input.path, input.pattern);
  if (!found.ok) return found;
  const offset = input.offset ?? 0;
  const rest = found.files.slice(offset);
  const page = (n: number): ListFilesResult =>
    n >= rest.length
      ? { files: rest, truncated: false }
      : {
          files: rest.slice(0, n),
          truncated: true,
          total: found.files.length,
          nextOffset: offset + n,
        };
  const shown = largestFitting(Math.min(rest.length, limits.maxEntries), (n) =>
    fitsBudget(page(n), budget),
  );
  return page(shown);
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
