import { mkdir, readFile, realpath, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { formatValueIssues, toValueIssues } from "@coding-agent/agent-core";
import { z } from "zod";
import type { TrustPins } from "./trust-pins.ts";

/**
 * `$CODING_AGENT_HOME/trusted.json`: the workspaces whose own settings may run code. An
 * entry is compared by its real path (symlinks resolved) with the real path of the run's
 * workspace, exactly: trusting a folder trusts neither its subfolders nor its parent.
 * A plain path (as a user writes it) trusts whatever the workspace defines; an entry the
 * CLI records on `--trust-workspace`, `{ path, pins }`, trusts only the definitions it
 * pinned (`trust-pins.ts`).
 */
const TrustEntrySchema = z.union([
  z.string().refine((entry) => path.isAbsolute(entry), "需要绝对路径"),
  z.strictObject({
    path: z.string().refine((entry) => path.isAbsolute(entry), "需要绝对路径"),
    pins: z.record(z.string(), z.string()),
  }),
]);
const TrustFileSchema = z.strictObject({ workspaces: z.array(TrustEntrySchema) });

/** How `trusted.json` lists a workspace. */
export type TrustEntry =
  | { readonly kind: "none" }
  | { readonly kind: "plain" }
  | { readonly kind: "pinned"; readonly pins: TrustPins };

/** The trust file's path under `home`. */
export const trustFileOf = (home: string) => path.join(home, "trusted.json");

/** How `workspace` (a real path) is listed in `trusted.json`; a message (Chinese) when that file is bad. */
export async function readTrustEntry(
  workspace: string,
  home: string,
): Promise<TrustEntry | string> {
  const loaded = await loadTrustFile(home);
  if (typeof loaded === "string") return loaded;
  let found: TrustEntry = { kind: "none" };
  for (const entry of loaded.workspaces) {
    const listed = typeof entry === "string" ? entry : entry.path;
    const real = await realpath(listed).catch(() => path.resolve(listed));
    if (real !== workspace) continue;
    // A plain path the user wrote keeps meaning "trusted, whatever it defines".
    if (typeof entry === "string") return { kind: "plain" };
    found = { kind: "pinned", pins: entry.pins };
  }
  return found;
}

/**
 * Records `--trust-workspace`: the workspace's entry with these pins, replacing an earlier
 * pinned entry for it; a plain path the user listed is left as it is. Written whole to a
 * temporary file and renamed, so a crash leaves the old file or the new one. Returns a
 * message (Chinese) when it could not be written.
 */
export async function recordTrust(
  workspace: string,
  home: string,
  pins: TrustPins,
): Promise<string | undefined> {
  const loaded = await loadTrustFile(home);
  if (typeof loaded === "string") return loaded;
  const current = await readTrustEntry(workspace, home);
  if (typeof current !== "string" && current.kind === "plain") return undefined;
  const others: z.infer<typeof TrustEntrySchema>[] = [];
  for (const entry of loaded.workspaces) {
    if (typeof entry === "string") {
      others.push(entry);
      continue;
    }
    const real = await realpath(entry.path).catch(() => path.resolve(entry.path));
    if (real !== workspace) others.push(entry);
  }
  const next = { ...loaded, workspaces: [...others, { path: workspace, pins }] };
  const file = trustFileOf(home);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(home, { recursive: true });
    await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
    return undefined;
  } catch (error) {
    return `无法记录对工作区的信任（${file}）：${(error as Error).message}`;
  }
}

async function loadTrustFile(home: string): Promise<z.infer<typeof TrustFileSchema> | string> {
  const file = trustFileOf(home);
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" || error.code === "ENOTDIR" ? undefined : error,
  );
  if (text === undefined) return { workspaces: [] };
  if (text instanceof Error) return `信任列表 ${file} 读不了：${text.message}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `信任列表 ${file} 不是有效的 JSON：${(error as Error).message}`;
  }
  const checked = TrustFileSchema.safeParse(parsed);
  if (!checked.success) {
    const details = formatValueIssues(toValueIssues(checked.error.issues), "；");
    return `信任列表 ${file} 无效：${details}（格式：{ "workspaces": ["<工作区的绝对路径>"] }）`;
  }
  return checked.data;
}
