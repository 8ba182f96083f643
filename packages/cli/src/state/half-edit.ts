import { mkdir, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { type ToolErrorResult, toolError } from "@coding-agent/agent-core";
import { writeFileAtomic } from "@coding-agent/tools";
import type { EditJournal } from "./edit-journal.ts";
import type { PredictedFile } from "./predict-edits.ts";

/** Where one file of an edit in doubt stands now. */
type FileState = "before" | "after" | "other";

/** What the model is told about a multi-file edit a crash cut in two. */
export type SettledEdit =
  | {
      readonly applied: true;
      readonly resumed: true;
      readonly files: ReadonlyArray<{ readonly path: string; readonly hash: string }>;
      readonly note: string;
    }
  | ToolErrorResult;

/**
 * Settles a multi-file edit that a crash left with its files in more than one state, so
 * the workspace never keeps half of it: when every file is either as before or as after
 * the edit, it is rolled forward (the files still as before get their new bytes from the
 * journal); when some file is neither (changed by someone since), it is rolled back (the
 * files already written get their old bytes back) and the model is told that file by
 * name. `now` holds each file's hash now (null: missing), in the order of `files`. Without
 * the journal's bytes nothing is written and the model is told each file's state.
 */
export async function settleHalfEdit(options: {
  readonly workspace: string;
  readonly files: readonly PredictedFile[];
  readonly now: readonly (string | null)[];
  readonly journal: EditJournal;
  readonly key: string;
}): Promise<SettledEdit> {
  const { workspace, files, now, journal, key } = options;
  const states: FileState[] = files.map((file, index) =>
    now[index] === file.after ? "after" : now[index] === file.before ? "before" : "other",
  );
  const named = (state: FileState) =>
    files.filter((_, index) => states[index] === state).map((file) => file.path);
  const forward = !states.includes("other");
  // What the chosen direction writes, each with the bytes it needs from the journal.
  const writes = files.flatMap((file, index) =>
    forward
      ? states[index] === "before"
        ? [{ file, hash: file.after as string | null }]
        : []
      : states[index] === "after"
        ? [{ file, hash: file.before }]
        : [],
  );
  const bytes = await Promise.all(
    writes.map(({ hash }) => (hash === null ? null : journal.read(key, hash))),
  );
  if (bytes.some((found) => found === undefined)) {
    return toolError(
      "stale_file",
      `运行在这次编辑写到一半时中断，恢复时找不到它的编辑日志，没有改动任何文件。现在${describe(named)}。请重新 read_file 再决定怎么改。`,
    );
  }
  for (const [index, { file }] of writes.entries()) {
    const absolute = path.join(workspace, file.path);
    // The log names workspace files; a path that leads out of it is written nowhere.
    if (path.relative(workspace, absolute).startsWith("..")) continue;
    const content = bytes[index];
    if (content === null || content === undefined) {
      await unlink(absolute).catch(() => undefined);
      continue;
    }
    const mode = await stat(absolute).then(
      (stats) => stats.mode,
      () => undefined,
    );
    if (mode === undefined) await mkdir(path.dirname(absolute), { recursive: true });
    await writeFileAtomic(absolute, content, mode);
  }
  await journal.discard(key);
  if (forward) {
    return {
      applied: true,
      resumed: true,
      files: files.map((file) => ({ path: file.path, hash: file.after })),
      note: `运行在这次编辑写到一半时中断（${named("after").join("、")} 已写入，${named("before").join("、")} 还没有）；恢复时补写了 ${named("before").join("、")}，现在每个文件都是编辑后的内容。`,
    };
  }
  const undone = named("after");
  return toolError(
    "stale_file",
    `运行中断后 ${named("other").join("、")} 既不是编辑前的内容，也不是编辑后的内容（被改动过），这次编辑无法完成${
      undone.length > 0 ? `；已把 ${undone.join("、")} 恢复为编辑前的内容` : ""
    }：这次编辑没有生效。请重新 read_file 再编辑。`,
  );
}

function describe(named: (state: FileState) => string[]): string {
  const parts = [
    ["after", "是编辑后的内容"],
    ["before", "还是编辑前的内容"],
    ["other", "既不是编辑前也不是编辑后的内容"],
  ] as const;
  return parts
    .map(([state, words]) => [named(state), words] as const)
    .filter(([paths]) => paths.length > 0)
    .map(([paths, words]) => `${paths.join("、")} ${words}`)
    .join("，");
}
