import { constants } from "node:fs";
import { open } from "node:fs/promises";
import type { ToolErrorResult } from "@coding-agent/agent-core";
import { z } from "zod";
import { DEFAULT_READ_LIMITS, findFiles, type ReadLimits } from "./fs-read.ts";
import {
  fitsBudget,
  largestFitting,
  type ObservationBudget,
  observationBudget,
} from "./observation-budget.ts";
import type { Workspace } from "./workspace.ts";

/**
 * What `search` returns: `path:line:text` lines (docs/contracts.md §6). When `truncated`, the call
 * with `offset: nextOffset` returns the matches after these.
 */
export interface SearchResult {
  readonly matches: readonly string[];
  readonly truncated: boolean;
  readonly nextOffset?: number;
}

export const SearchInputSchema = z.object({
  pattern: z.string().min(1, "pattern 不能为空"),
  path: z.string().min(1).optional(),
  glob: z.string().min(1).optional(),
  /** Matches to skip, in file and line order: paging through many matches. */
  offset: z.int().min(0).optional(),
});

/** Files larger than this are skipped by `search` (generated or data files). */
const MAX_SEARCH_FILE_BYTES = 1_000_000;

/**
 * Finds lines containing `pattern` as plain text (not a regular expression: a
 * model-written regex can backtrack for minutes and would stall the run).
 * Binary files, `.git/`, `node_modules/` and files whose real path leaves the
 * workspace are skipped.
 */
export async function searchWorkspace(
  workspace: Workspace,
  input: z.output<typeof SearchInputSchema>,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  budget: ObservationBudget = observationBudget(),
): Promise<SearchResult | ToolErrorResult> {
  const found = await findFiles(workspace, input.path, input.glob);
  if (!found.ok) return found;
  const offset = input.offset ?? 0;
  const page = (matches: readonly string[], more: boolean): SearchResult => {
    const shown = largestFitting(Math.min(matches.length, limits.maxMatches), (n) =>
      fitsBudget({ matches: matches.slice(0, n), truncated: true, nextOffset: offset + n }, budget),
    );
    return shown < matches.length || more
      ? { matches: matches.slice(0, shown), truncated: true, nextOffset: offset + shown }
      : { matches, truncated: false };
  };
  let skipped = 0;
  const matches: string[] = [];
  for (const file of found.files) {
    // A file may be a symlink to somewhere outside: it is checked like any read.
    const target = await workspace.resolve(file);
    if (!target.ok || !target.exists) continue;
    const text = await readSearchable(target.absolute);
    if (text === undefined) continue;
    const lines = text.split("\n");
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] ?? "";
      if (!line.includes(input.pattern)) continue;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      if (matches.length === limits.maxMatches) return page(matches, true);
      const shown =
        line.length > limits.maxLineChars ? `${line.slice(0, limits.maxLineChars)}…` : line;
      matches.push(`${file}:${index + 1}:${shown.replace(/\r$/, "")}`);
    }
  }
  return page(matches, false);
}

/** A regular text file's content, or undefined for binary, huge or unreadable files. */
async function readSearchable(absolute: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > MAX_SEARCH_FILE_BYTES) return undefined;
    const bytes = await handle.readFile();
    if (bytes.subarray(0, 8_000).includes(0)) return undefined;
    return bytes.toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
