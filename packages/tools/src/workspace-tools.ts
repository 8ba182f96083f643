import { defineTool, type Redactor, type ToolSet } from "@coding-agent/agent-core";
import type { ApprovalOptions } from "./approval-gate.ts";
import type { ApprovalMode, Approver } from "./approvals.ts";
import { createEditTools } from "./edit-tools.ts";
import type { EditSession } from "./edits/edit-session.ts";
import {
  DEFAULT_READ_LIMITS,
  ListFilesInputSchema,
  listWorkspaceFiles,
  ReadFileInputSchema,
  type ReadLimits,
  readWorkspaceFile,
} from "./fs-read.ts";
import {
  type KeepOutput,
  type ObservationBudget,
  observationBudget,
} from "./observation-budget.ts";
import { createRunCommandTool } from "./run-command.ts";
import { createSandboxPolicy } from "./sandbox/policy.ts";
import type { SandboxChoice } from "./sandbox/sandbox-mode.ts";
import { SearchInputSchema, searchWorkspace } from "./search.ts";
import { createRunTests, RunTestsInputSchema } from "./test-runs/run-tests.ts";
import { createWorkspace, type Workspace } from "./workspace.ts";

/** Everything the workspace tools need for one run. */
export interface WorkspaceToolsOptions {
  /** The only folder the tools may read (and commands may write, under bwrap). */
  readonly workspace: string;
  /** `--allow-command` names. */
  readonly allowCommands: readonly string[];
  readonly approval: ApprovalMode;
  readonly approver?: Approver;
  readonly approvalTimeoutMs?: number;
  /** Decided beforehand with `chooseSandbox`. */
  readonly sandbox: Exclude<SandboxChoice, { kind: "unavailable" }>;
  /** The parent environment the child's is built from; `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly allowEnv?: readonly string[];
  readonly readLimits?: ReadLimits;
  /**
   * The run's `maxObservationChars` (agent-core's `RunOptions`; default
   * `DEFAULT_MAX_OBSERVATION_CHARS`): every tool pages its result within it, so the
   * loop's cap never cuts a result that says it is whole. Pass the run's value.
   */
  readonly maxObservationChars?: number;
  /** The run's redactor (`RunOptions.redact`): results are measured as the model sees them, redacted. */
  readonly redact?: Redactor;
  /** `--allow-path` globs for the write tools; none means the whole workspace. */
  readonly allowPaths?: readonly string[];
  /**
   * Workspace paths of the scripts hooks and MCP servers run: the write tools refuse them
   * and a bwrap sandbox binds them read-only, as `.coding-agent/` and `.mcp.json`.
   */
  readonly protectedFiles?: readonly string[];
  /** Records the run's edits (for its diff); a fresh one by default. */
  readonly editSession?: EditSession;
  /**
   * `run_command` hands its output back whole (see `RunCommandOptions.wholeOutput`): only
   * for a run whose artifacts keep what the model does not see.
   */
  readonly wholeCommandOutput?: boolean;
  /** What `run_tests` runs (`--test-command`, or the package's test script); none: it says how to give one. */
  readonly testCommand?: string;
  /** Where `run_command` and `run_tests` keep an output cut to the budget (see `KeepOutput`). */
  readonly keepOutput?: KeepOutput;
}

/**
 * `read_file`, `list_files`, `search`, `run_command`, `run_tests` and the write tools
 * `edit_file`, `write_file`, `apply_edits` (docs/contracts.md §6), confined to one workspace.
 * Create one set per run: "allow for the run" answers live in it.
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): ToolSet {
  const workspace = createWorkspace(options.workspace);
  const limits = options.readLimits ?? DEFAULT_READ_LIMITS;
  const budget = observationBudget(options.maxObservationChars, options.redact);
  const policy = createSandboxPolicy({
    workspace,
    allowCommands: options.allowCommands,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.allowEnv === undefined ? {} : { allowEnv: options.allowEnv }),
    ...(options.protectedFiles === undefined ? {} : { protectedFiles: options.protectedFiles }),
  });
  const runTests = createRunTests({
    policy,
    sandbox: options.sandbox,
    budget,
    ...(options.testCommand === undefined ? {} : { testCommand: options.testCommand }),
    ...(options.keepOutput === undefined ? {} : { keepOutput: options.keepOutput }),
  });
  // One gate per tool, each remembering its own "allow for the run" answers.
  const approvals: ApprovalOptions = {
    approval: options.approval,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    ...(options.approvalTimeoutMs === undefined
      ? {}
      : { approvalTimeoutMs: options.approvalTimeoutMs }),
  };
  return {
    ...createReadTools(workspace, limits, budget),
    run_command: createRunCommandTool({
      policy,
      sandbox: options.sandbox,
      budget,
      ...(options.wholeCommandOutput ? { wholeOutput: true } : {}),
      ...(options.keepOutput === undefined ? {} : { keepOutput: options.keepOutput }),
      ...approvals,
    }),
    run_tests: defineTool({
      description:
        "运行工作区的测试命令：{} → { passed, failed, skipped, failures: [{ name, message }], exitCode }",
      inputSchema: RunTestsInputSchema,
      execute: (input, signal) => runTests(input, signal),
    }),
    ...createEditTools({
      workspace,
      ...approvals,
      ...(options.allowPaths === undefined ? {} : { allowPaths: options.allowPaths }),
      ...(options.protectedFiles === undefined ? {} : { protectedFiles: options.protectedFiles }),
      ...(options.editSession === undefined ? {} : { session: options.editSession }),
    }),
  };
}

/**
 * `read_file`, `list_files` and `search` (docs/contracts.md §6) over one workspace: every path they
 * take goes through `workspace.resolve`, the one wall between the model and the machine.
 */
export function createReadTools(
  workspace: Workspace,
  limits: ReadLimits = DEFAULT_READ_LIMITS,
  budget: ObservationBudget = observationBudget(),
): ToolSet {
  return {
    read_file: defineTool({
      description:
        "读取工作区内的文本文件：{ path, startLine?, endLine?, startColumn? } → { content, hash, totalLines, truncated, nextStartLine?, nextStartColumn? }。" +
        "content 是整行；truncated 为 true 时没读完，用 startLine: nextStartLine（有 nextStartColumn 时再加 startColumn）继续读",
      inputSchema: ReadFileInputSchema,
      // A read changes nothing: the reads of one reply run side by side.
      concurrent: true,
      execute: (input) => readWorkspaceFile(workspace, input, limits, budget),
    }),
    list_files: defineTool({
      description:
        "列出工作区内的文件（不含 .git/、node_modules/）：{ path?, pattern?, offset? } → { files, truncated, total?, nextOffset? }；" +
        "truncated 为 true 时用 offset: nextOffset 继续列",
      inputSchema: ListFilesInputSchema,
      // A read changes nothing: the reads of one reply run side by side.
      concurrent: true,
      execute: (input) => listWorkspaceFiles(workspace, input, limits, budget),
    }),
    search: defineTool({
      description:
        '在工作区文件中按纯文本查找：{ pattern, path?, glob?, offset? } → { matches: ["path:line:text"], truncated, nextOffset? }；' +
        "truncated 为 true 时用 offset: nextOffset 看后面的匹配",
      inputSchema: SearchInputSchema,
      // A read changes nothing: the reads of one reply run side by side.
      concurrent: true,
      execute: (input) => searchWorkspace(workspace, input, limits, budget),
    }),
  };
}
