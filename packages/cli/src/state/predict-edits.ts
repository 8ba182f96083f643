import type { ToolCallInfo } from "@coding-agent/agent-core";
import {
  createPathAllowance,
  createWorkspace,
  type EditInput,
  hashBytes,
  planChanges,
} from "@coding-agent/tools";
import type { EditContents } from "./edit-journal.ts";

/** A file an edit will change: its hash before (null: it does not exist) and after. */
export interface PredictedFile {
  readonly path: string;
  readonly before: string | null;
  readonly after: string;
}

/** An edit's files as the log records them (hashes), and their bytes for the journal. */
export interface PredictedEdit {
  readonly files: readonly PredictedFile[];
  readonly contents: readonly EditContents[];
}

/**
 * What an edit tool's call will make of each file it changes, worked out before it runs
 * (the same planning the tool does): the hashes a resume compares the files with to tell
 * "already applied" from "not yet applied". Undefined for other tools, and for an edit
 * the planning refuses (it will write nothing).
 */
export function editPredictor(root: string, allowPaths: readonly string[]) {
  const context = { workspace: createWorkspace(root), allowance: createPathAllowance(allowPaths) };
  return async (call: ToolCallInfo): Promise<PredictedEdit | undefined> => {
    const edits = editsOf(call);
    if (edits === undefined) return undefined;
    const planned = await planChanges(context, edits);
    if (!planned.ok) return undefined;
    return {
      files: planned.changes.map((change) => ({
        path: change.relative,
        before: change.before === null ? null : hashBytes(change.before),
        after: hashBytes(change.after),
      })),
      contents: planned.changes.map((change) => ({ before: change.before, after: change.after })),
    };
  };
}

function editsOf(call: ToolCallInfo): readonly EditInput[] | undefined {
  switch (call.tool) {
    case "edit_file":
    case "write_file":
      return [call.input as unknown as EditInput];
    case "apply_edits":
      return (call.input as unknown as { edits: readonly EditInput[] }).edits;
    default:
      return undefined;
  }
}
