import { type BlockedOutcome, defineTool, type ToolErrorResult } from "@coding-agent/agent-core";
import { z } from "zod";
import { type ApprovalOptions, createApprovalGate, type GatedCall } from "./approval-gate.ts";
import { createPathAllowance } from "./edits/allow-path.ts";
import { type FileOps, NODE_FILE_OPS } from "./edits/atomic-write.ts";
import {
  createEditSession,
  diffChanges,
  type EditSession,
  workspaceVersion,
} from "./edits/edit-session.ts";
import { commitChanges, type RollBack } from "./edits/edit-transaction.ts";
import {
  EditFileInputSchema,
  type EditInput,
  type PlannedFile,
  planChanges,
  WriteFileInputSchema,
} from "./edits/plan-changes.ts";
import type { LocateText } from "./edits/text-edit.ts";
import type { Workspace } from "./workspace.ts";

/**
 * Everything `edit_file`, `write_file` and `apply_edits` need for one run. A write that
 * changes bytes needs permission: `auto` writes what `--allow-path` permits, `deny` ends
 * the run blocked, `ask` lets `approver` decide (with the diff).
 */
export interface EditToolsOptions extends ApprovalOptions {
  readonly workspace: Workspace;
  /** `--allow-path` globs; none means the whole workspace (`.git/`, `node_modules/` never). */
  readonly allowPaths?: readonly string[];
  /**
   * Workspace paths of the scripts hooks and MCP servers run: never writable, like
   * `.coding-agent/**` and `.mcp.json` (`isAgentConfig`).
   */
  readonly protectedFiles?: readonly string[];
  /** Where the run's changes are recorded, for its diff; a fresh one by default. */
  readonly session?: EditSession;
  /** The filesystem writes; tests substitute a failing one. */
  readonly fileOps?: FileOps;
  /** Characters of diff returned to the model by one call. Default 20,000. */
  readonly maxDiffChars?: number;
  /** Finds the exact text `edit_file` replaces; default `locateExactlyOnce` (lesson 17 passes the learner's). */
  readonly locateText?: LocateText;
  /** Undoes a transaction whose write failed; default `rollBack` (lesson 18 passes the learner's). */
  readonly rollBack?: RollBack;
}

export const ApplyEditsInputSchema = z.strictObject({
  edits: z
    .array(z.union([EditFileInputSchema, WriteFileInputSchema]))
    .min(1, "edits 至少要有一个编辑")
    .max(100, "一次最多 100 个编辑"),
});

/** What `edit_file` returns: the file's new hash (for the next `expectedHash`) and the diff. */
export interface EditFileResult {
  readonly path: string;
  readonly hash: string;
  readonly diff: string;
}

/** What `write_file` returns. */
export interface WriteFileResult extends EditFileResult {
  readonly created: boolean;
}

/** What `apply_edits` returns: every file touched, the new workspace version, the diff. */
export interface ApplyEditsResult {
  readonly version: string;
  readonly files: readonly PlannedFile[];
  readonly diff: string;
}

type Applied = { readonly files: readonly PlannedFile[]; readonly diff: string };

/** The steps every write tool takes on a call: plan, permission (with the diff), commit. */
interface EditPipeline {
  /** The permission step alone, for the loop to ask before the call starts (agent-core's `Tool.authorize`). */
  authorize(
    tool: string,
    input: object,
    edits: readonly EditInput[],
    signal: AbortSignal,
  ): Promise<BlockedOutcome | undefined>;
  /**
   * The whole call: plans every change, asks permission unless `authorize` gave it for
   * this very diff, then commits all or nothing and records it in the run's session.
   */
  apply(
    tool: string,
    input: object,
    edits: readonly EditInput[],
    signal: AbortSignal | undefined,
  ): Promise<Applied | ToolErrorResult | BlockedOutcome>;
}

/** The edit pipeline of one run: one path allowance, approval gate and session for every write tool. */
function createEditPipeline(options: EditToolsOptions): EditPipeline {
  const context = {
    workspace: options.workspace,
    allowance: createPathAllowance(options.allowPaths ?? [], {
      protectedFiles: options.protectedFiles ?? [],
    }),
    ...(options.locateText === undefined ? {} : { locate: options.locateText }),
  };
  const session = options.session ?? createEditSession();
  const fileOps = options.fileOps ?? NODE_FILE_OPS;
  const gate = createApprovalGate({ ...options, auto: "allow" });
  const maxDiffChars = options.maxDiffChars ?? 20_000;

  /**
   * Plans the call and says what permission it needs, with its diff: none when it cannot
   * apply or changes nothing (`execute` reports that). "Allow for the run" covers every
   * later write in the workspace (`program` is its root).
   */
  async function plan(tool: string, edits: readonly EditInput[]) {
    const planned = await planChanges(context, edits);
    if (!planned.ok) return { planned, diff: "", call: undefined };
    const diff = boundDiff(diffChanges(planned.changes).patch, maxDiffChars);
    if (planned.changes.length === 0) return { planned, diff, call: undefined };
    const paths = planned.changes.map((c) => c.relative);
    const call: GatedCall = {
      request: {
        tool,
        argv: [tool, ...paths],
        program: options.workspace.root,
        reason: `${tool} 要修改 ${paths.join("、")}，写入需要批准（--approval）`,
        paths,
        diff,
      },
      undone: "没有写入任何文件",
    };
    return { planned, diff, call };
  }

  async function authorize(
    tool: string,
    input: object,
    edits: readonly EditInput[],
    signal: AbortSignal,
  ): Promise<BlockedOutcome | undefined> {
    return gate.authorize(input, (await plan(tool, edits)).call, signal);
  }

  async function apply(
    tool: string,
    input: object,
    edits: readonly EditInput[],
    signal: AbortSignal | undefined,
  ): Promise<Applied | ToolErrorResult | BlockedOutcome> {
    const { planned, diff, call } = await plan(tool, edits);
    if (!planned.ok) return planned;
    // Allowed in `authorize` for exactly this diff, or asked now (a direct call, or the
    // files changed in between, so what was allowed is not what would be written).
    const refused = await gate.admit(input, call, signal);
    if (refused !== undefined) return refused;
    if (planned.changes.length > 0) {
      // Cancelled while asking (Ctrl-C at the prompt): nothing may be written after that.
      signal?.throwIfAborted();
      const committed = await commitChanges(planned.changes, fileOps, options.rollBack);
      if (!committed.ok) return committed;
      session.record(planned.changes);
    }
    return { files: planned.files, diff };
  }

  return { authorize, apply };
}

/**
 * The week-4 write tools (docs/contracts.md §6), confined like the read tools and permitted by
 * `--allow-path` and `--approval`. Each call plans every change first (nothing is
 * written when any edit fails), asks permission with the diff, then commits all or
 * nothing.
 */
export function createEditTools(options: EditToolsOptions) {
  const { authorize, apply } = createEditPipeline(options);
  return {
    edit_file: defineTool({
      description:
        "把文件中只出现一次的 old 文本替换为 new：{ path, old, new, expectedHash? } → { path, hash, diff }。" +
        "expectedHash 填 read_file 返回的 hash，文件在读取后被改过则返回 stale_file",
      inputSchema: EditFileInputSchema,
      authorize: (input, signal) => authorize("edit_file", input, [input], signal),
      execute: async (
        input,
        signal,
      ): Promise<EditFileResult | ToolErrorResult | BlockedOutcome> => {
        const applied = await apply("edit_file", input, [input], signal);
        if (!("files" in applied)) return applied;
        return single(applied);
      },
    }),
    write_file: defineTool({
      description:
        "写入（或新建）整个文件：{ path, content, expectedHash? } → { path, hash, created, diff }",
      inputSchema: WriteFileInputSchema,
      authorize: (input, signal) => authorize("write_file", input, [input], signal),
      execute: async (
        input,
        signal,
      ): Promise<WriteFileResult | ToolErrorResult | BlockedOutcome> => {
        const applied = await apply("write_file", input, [input], signal);
        if (!("files" in applied)) return applied;
        return { ...single(applied), created: applied.files[0]?.created ?? false };
      },
    }),
    apply_edits: defineTool({
      description:
        "一次应用多个编辑（edit_file 或 write_file 的输入），要么全部成功，要么全部不生效：" +
        "{ edits: [...] } → { version, files, diff }",
      inputSchema: ApplyEditsInputSchema,
      authorize: (input, signal) => authorize("apply_edits", input, input.edits, signal),
      execute: async (
        input,
        signal,
      ): Promise<ApplyEditsResult | ToolErrorResult | BlockedOutcome> => {
        const applied = await apply("apply_edits", input, input.edits, signal);
        if (!("files" in applied)) return applied;
        return { version: await workspaceVersion(options.workspace), ...applied };
      },
    }),
  };
}

function single(applied: Applied): EditFileResult {
  const [file] = applied.files;
  if (file === undefined) throw new Error("a single edit planned no file");
  return { path: file.path, hash: file.hash, diff: applied.diff };
}

function boundDiff(patch: string, maxChars: number): string {
  if (patch.length <= maxChars) return patch;
  return `${patch.slice(0, maxChars)}\n[… diff 过长，省略 ${patch.length - maxChars} 个字符 …]\n`;
}
