import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isBlockedOutcome, type Tool, type ToolInput } from "@coding-agent/agent-core";

/** Calls a tool as the registry would: the input through its schema first (which must accept it). */
export async function callTool(tool: Tool | undefined, input: unknown): Promise<unknown> {
  if (tool === undefined) throw new Error("no such tool");
  const parsed = tool.inputSchema === undefined ? input : tool.inputSchema.parse(input);
  return tool.execute(parsed as ToolInput, new AbortController().signal);
}

/** The error code of a tool outcome, `blocked` for a blocked run, or `ok`. */
export function outcomeCode(outcome: unknown): string {
  if (isBlockedOutcome(outcome)) return "blocked";
  const error = (outcome as { ok?: boolean; error?: { code: string } }).error;
  return (outcome as { ok?: boolean }).ok === false && error !== undefined ? error.code : "ok";
}

/** Every file below `dir` (names relative to it) with its bytes, as a comparable snapshot. */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const snapshot: Record<string, string> = {};
  for (const entry of entries) {
    const absolute = join(entry.parentPath, entry.name);
    const relative = absolute.slice(dir.length + 1);
    if (entry.isSymbolicLink()) snapshot[relative] = "<symlink>";
    else if (entry.isDirectory()) snapshot[`${relative}/`] = "<dir>";
    else if (entry.isFile()) snapshot[relative] = (await readFile(absolute)).toString("base64");
  }
  return snapshot;
}
