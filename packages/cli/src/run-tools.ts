import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { Redactor, ToolSet } from "@coding-agent/agent-core";
import {
  type ApprovalMode,
  type Approver,
  chooseSandbox,
  createEditSession,
  createWorkspaceTools,
  denyAll,
  type EditSession,
  type KeepOutput,
  readPackageTestScript,
  type SandboxMode,
} from "@coding-agent/tools";
import { BUILTIN_TOOLS } from "./builtin-tools.ts";

/** What `coding-agent run` needs to build its tools (the week-3 and week-4 flags). */
export interface RunToolsOptions {
  readonly workspace: string;
  readonly allowCommands: readonly string[];
  readonly approval: ApprovalMode;
  readonly sandbox: SandboxMode;
  /** The terminal prompt, when there is a terminal; `ask` without one refuses. */
  readonly approver?: Approver;
  /** `--test-command`; else the workspace's `package.json` `test` script, read now. */
  readonly testCommand?: string;
  readonly allowPaths?: readonly string[];
  /** Workspace files hooks and MCP servers run: never written by the tools, read-only under bwrap. */
  readonly protectedFiles?: readonly string[];
  /** The run's `maxObservationChars`: the tools page their results within it. */
  readonly maxObservationChars?: number;
  /** The run's redactor: results are measured as the model sees them. */
  readonly redact?: Redactor;
  /** `run_command` hands its output back whole: the run keeps large results as artifacts. */
  readonly wholeCommandOutput?: boolean;
  /** Where `run_command` and `run_tests` keep an output cut to the budget (`read_artifact` reads it). */
  readonly keepOutput?: KeepOutput;
}

/** The run's tools, a Chinese warning to print, or a usage error (exit 2). */
export type RunToolsResult =
  | {
      readonly ok: true;
      readonly tools: ToolSet;
      /** The run's edits, for the diff printed at the end. */
      readonly edits: EditSession;
      /** The workspace's real path (symlinks resolved): where the run's files are judged. */
      readonly workspaceRoot: string;
      /** What `run_tests` runs, when there is anything to run: the finish gate needs one. */
      readonly testCommand?: string;
      readonly warning?: string;
    }
  | { readonly ok: false; readonly message: string };

/**
 * Builds `echo`, `sleep` and the workspace tools for one run, after checking
 * the workspace folder and deciding the sandbox (`--sandbox bwrap` without a working
 * bwrap is a usage error that says how to install it).
 */
export async function prepareRunTools(options: RunToolsOptions): Promise<RunToolsResult> {
  const workspace = path.resolve(options.workspace);
  const stats = await stat(workspace).catch(() => undefined);
  if (stats === undefined || !stats.isDirectory()) {
    return { ok: false, message: `--workspace 必须是已存在的目录：${options.workspace}` };
  }
  const sandbox = await chooseSandbox({ mode: options.sandbox, workspace });
  if (sandbox.kind === "unavailable") return { ok: false, message: sandbox.message };
  // Read once, before the model can edit package.json: what run_tests runs stays what the user had.
  const testCommand = options.testCommand ?? (await readPackageTestScript(workspace));
  const edits = createEditSession();
  const tools = createWorkspaceTools({
    workspace,
    allowCommands: options.allowCommands,
    approval: options.approval,
    // `ask` with no terminal to ask on is `deny` (docs/contracts.md §6).
    approver: options.approver ?? denyAll,
    sandbox,
    editSession: edits,
    allowPaths: options.allowPaths ?? [],
    ...(options.protectedFiles === undefined ? {} : { protectedFiles: options.protectedFiles }),
    ...(testCommand === undefined ? {} : { testCommand }),
    ...(options.maxObservationChars === undefined
      ? {}
      : { maxObservationChars: options.maxObservationChars }),
    ...(options.redact === undefined ? {} : { redact: options.redact }),
    ...(options.wholeCommandOutput ? { wholeCommandOutput: true } : {}),
    ...(options.keepOutput === undefined ? {} : { keepOutput: options.keepOutput }),
  });
  return {
    ok: true,
    tools: { ...BUILTIN_TOOLS, ...tools },
    edits,
    workspaceRoot: await realpath(workspace),
    ...(testCommand === undefined ? {} : { testCommand }),
    ...(sandbox.kind === "none" && sandbox.warning !== undefined
      ? { warning: sandbox.warning }
      : {}),
  };
}
