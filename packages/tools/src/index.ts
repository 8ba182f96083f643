/**
 * `@coding-agent/tools`: the tools that touch the machine, each confined to one
 * workspace: reading files, running commands under a policy and an OS sandbox,
 * and asking permission.
 */
export {
  type ApprovalGate,
  type ApprovalOptions,
  type ApprovalVerdict,
  createApprovalGate,
  type DecideApproval,
  decideApproval,
  type GatedCall,
} from "./approval-gate.ts";
export {
  APPROVAL_MODES,
  type ApprovalDecision,
  type ApprovalMode,
  type ApprovalOutcome,
  type ApprovalRequest,
  type Approver,
  denyAll,
  requestApproval,
} from "./approvals.ts";
export {
  ARTIFACT_ID_PATTERN,
  createFileArtifactStore,
  isArtifactId,
} from "./artifacts/file-artifact-store.ts";
export {
  createReadArtifactTool,
  type ReadArtifactInput,
  ReadArtifactInputSchema,
  type ReadArtifactResult,
  readArtifact,
} from "./artifacts/read-artifact.ts";
export {
  ApplyEditsInputSchema,
  type ApplyEditsResult,
  createEditTools,
  type EditFileResult,
  type EditToolsOptions,
  type WriteFileResult,
} from "./edit-tools.ts";
export {
  AGENT_CONFIG_DIR,
  agentConfigMounts,
  isAgentConfig,
  MCP_CONFIG_FILE,
} from "./edits/agent-config.ts";
export { allowPathProblem, createPathAllowance, type PathAllowance } from "./edits/allow-path.ts";
export {
  type FileOps,
  NODE_FILE_OPS,
  removeLeftoverTemps,
  writeFileAtomic,
} from "./edits/atomic-write.ts";
export {
  createEditSession,
  diffChanges,
  type EditDiff,
  type EditSession,
  workspaceVersion,
} from "./edits/edit-session.ts";
export {
  commitChanges,
  type RollBack,
  RollbackError,
  rollBack,
  type WrittenChange,
} from "./edits/edit-transaction.ts";
export {
  type EditFileInput,
  EditFileInputSchema,
  type EditInput,
  type FileChange,
  hashBytes,
  type PlannedFile,
  planChanges,
  type WriteFileInput,
  WriteFileInputSchema,
} from "./edits/plan-changes.ts";
export {
  findAllOccurrences,
  type LocateOutcome,
  type LocateText,
  lineAt,
  locateExactlyOnce,
  replaceExactlyOnce,
  type TextEditOutcome,
  type TextEditRefusal,
} from "./edits/text-edit.ts";
export {
  DEFAULT_READ_LIMITS,
  EXCLUDED_DIRS,
  findFiles,
  ListFilesInputSchema,
  type ListFilesResult,
  listWorkspaceFiles,
  type ReadFileInput,
  ReadFileInputSchema,
  type ReadFileResult,
  type ReadLimits,
  readWorkspaceFile,
} from "./fs-read.ts";
export {
  BUILD_OUTPUT_DIRS,
  createIgnoredFilter,
  type IgnoredFilter,
  isBuildOutput,
} from "./ignored-files.ts";
export {
  fitsBudget,
  type KeepOutput,
  MIN_OBSERVATION_BUDGET,
  type ObservationBudget,
  observationBudget,
  observedLength,
} from "./observation-budget.ts";
export {
  createRunCommand,
  createRunCommandTool,
  type RunCommand,
  type RunCommandInput,
  RunCommandInputSchema,
  type RunCommandOptions,
  type RunCommandResult,
} from "./run-command.ts";
export { type BwrapProbe, buildBwrapArgv, probeBwrap } from "./sandbox/bwrap.ts";
export { type ProcessOptions, type ProcessResult, runProcess } from "./sandbox/exec.ts";
export { createOutputCap, type OutputCap } from "./sandbox/output-cap.ts";
export {
  buildChildEnv,
  createSandboxPolicy,
  DEFAULT_ENV_ALLOWLIST,
  findOnPath,
  type PolicyOptions,
  type ProgramResolution,
  type SandboxPolicy,
} from "./sandbox/policy.ts";
export { isProcessAlive } from "./sandbox/process-alive.ts";
export {
  type KillReason,
  OWN_PROCESS_GROUP,
  type ProcessGroup,
  type StartedChild,
} from "./sandbox/process-group.ts";
export {
  BWRAP_INSTALL,
  chooseSandbox,
  SANDBOX_MODES,
  type SandboxChoice,
  type SandboxMode,
} from "./sandbox/sandbox-mode.ts";
export { SearchInputSchema, type SearchResult, searchWorkspace } from "./search.ts";
export { parseGoTestJson } from "./test-runs/go-test-report.ts";
export { parseLibtestSummary } from "./test-runs/libtest-report.ts";
export { parseMochaSummary } from "./test-runs/mocha-report.ts";
export {
  type TestCommandPlan,
  type TestReportKind,
  withMachineReporter,
} from "./test-runs/plan-test-command.ts";
export { parsePytestSummary } from "./test-runs/pytest-report.ts";
export {
  createRunTests,
  READABLE_RUNNERS,
  type RunTestsInput,
  RunTestsInputSchema,
  type RunTestsOptions,
  type RunTestsResult,
  readPackageScripts,
  readPackageTestScript,
  readTestReport,
} from "./test-runs/run-tests.ts";
export { parseTap } from "./test-runs/tap-report.ts";
export { joinTestName } from "./test-runs/test-name.ts";
export {
  parseJestLikeJson,
  parseNodeTap,
  readTapYamlBlock,
  type TestCounts,
  type TestFailure,
} from "./test-runs/test-report.ts";
export { parseUnittestSummary } from "./test-runs/unittest-report.ts";
export {
  createWorkspace,
  isInside,
  locateRealPath,
  type RealLocation,
  type Workspace,
  type WorkspacePath,
} from "./workspace.ts";
export {
  createReadTools,
  createWorkspaceTools,
  type WorkspaceToolsOptions,
} from "./workspace-tools.ts";
export {
  changedFiles,
  createWorkspaceVersioner,
  versionOf,
  type WorkspaceState,
  type WorkspaceVersioner,
} from "./workspace-version.ts";
