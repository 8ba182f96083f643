/** `@coding-agent/cli`: the `coding-agent` command, usable as a library for tests. */

export { createTerminalApprover, parseApprovalAnswer } from "./approval-prompt.ts";
export {
  type CliArgsResult,
  type CliCommand,
  COMMANDS,
  PROVIDERS,
  type ProviderName,
  parseCliArgs,
  usage,
} from "./args.ts";
export { BUILTIN_TOOLS } from "./builtin-tools.ts";
export { type CapturedCliRun, runCli, runCliCaptured } from "./cli.ts";
export type { CliIo } from "./cli-io.ts";
// The bin imports each command when it runs (start-up); a program importing the package gets
// them loaded with it, so its first `runCli` does not pay for loading a run's modules.
export { runEvalCli } from "./eval-command.ts";
export { EXIT_CODES, EXIT_USAGE, type ExitCode, exitCodeFor } from "./exit-codes.ts";
export { createCommandHooks, type HookDecision } from "./hooks/command-hooks.ts";
export { hookExtensions } from "./hooks/index.ts";
export { type HookRun, runHookCommand } from "./hooks/run-hook.ts";
export { type HookEntry, type HookEvent, loadHookSettings } from "./hooks/settings.ts";
export { type HookVerdict, hookVerdict } from "./hooks/verdict.ts";
export { loadRunDefaults } from "./load-run-defaults.ts";
export {
  type McpApprovalCall,
  type McpGatedTool,
  type McpServerConfig,
  type McpServersParse,
  type McpSession,
  mcpApprovalCall,
  parseMcpServers,
} from "./mcp/index.ts";
export { startMcpServers } from "./mcp/servers.ts";
export { type CliEnv, createModelBackend, type ModelBackend } from "./model-provider.ts";
export {
  describeParseArgsError,
  type ParseArgsResult,
  parseArgsOrExplain,
} from "./parse-args.ts";
export { loadPricingFile, type PricingLoadResult, pricedModel } from "./pricing-file.ts";
export {
  compareWithLog,
  describeEvent,
  type ReplayMove,
  type ReplayVerdict,
} from "./replay/divergence.ts";
export { createReplayer, type Replayer } from "./replay/replayer.ts";
export { replayRun } from "./replay.ts";
export { escapeHtml, type HtmlValue, html, SafeHtml } from "./report/html-escape.ts";
export { renderHtmlReport } from "./report/html-report.ts";
export { printable } from "./report/printable.ts";
export type {
  Cost,
  LooseEvent,
  ModelCall,
  RunEnd,
  StepEntry,
  StepReport,
  TimelineItem,
  ToolCall,
  Totals,
  TraceReport,
} from "./report/report-model.ts";
export { formatTerminalReport } from "./report/terminal-report.ts";
export { locateTrace, runTraceCommand, TRACE_FILE } from "./report/trace-command.ts";
export {
  KNOWN_TRACE_TYPES,
  parseTraceLines,
  type ReadTrace,
  type ReadTraceEvent,
} from "./report/trace-lines.ts";
export { addCost, buildTraceReport } from "./report/trace-report.ts";
export { type RunRecords, readRunRecords, type TraceLine } from "./run-evidence.ts";
export { prepareRunFeatures, type RunFeatures } from "./run-extensions.ts";
export {
  codingAgentHome,
  listRuns,
  newRunId,
  RUN_ID_PATTERN,
  type RunSummary,
  runDirOf,
} from "./run-files.ts";
export { RUN_FLAGS } from "./run-flags.ts";
export { resumeRun, startRun } from "./run-session.ts";
export { prepareRunTools, type RunToolsOptions, type RunToolsResult } from "./run-tools.ts";
export {
  defaultScript,
  loadScriptFile,
  routeScript,
  type ScriptLoadResult,
} from "./script-file.ts";
export {
  openStateLog,
  parseStateLog,
  type ReadStateLog,
  readStateLog,
  STATE_EVENT_TYPES,
  type StateEvent,
  type StateEventBody,
  type StateEventType,
  type StateLog,
} from "./state/log.ts";
export type { PredictedFile } from "./state/predict-edits.ts";
export {
  type AlreadyLogged,
  createRunRecorder,
  idempotencyKey,
  type RunRecorder,
} from "./state/recorder.ts";
export {
  createResumeExtension,
  decideInDoubt,
  type InDoubtDecision,
  planResume,
  type ResumePlan,
  type ResumePlanResult,
  recordedResponse,
  replayingProvider,
} from "./state/resume.ts";
export { createWorkspaceTracker, type WorkspaceTracker } from "./state/workspace-tracker.ts";
export { type ChildRunOptions, createChildRunner } from "./subagents/child-run.ts";
export type {
  ChildBudget,
  ChildOutcome,
  ChildRunner,
  ChildSpec,
} from "./subagents/child-runner.ts";
export { type ChildTask, type RunAllOptions, runAll, type Settled } from "./subagents/scheduler.ts";
export {
  createSubagents,
  type Subagents,
  type SubagentsOptions,
} from "./subagents/spawn-agent.ts";
export {
  SPAWN_AGENT,
  type SpawnResult,
  spawnAgentTool,
  spawnInputSchema,
} from "./subagents/spawn-tool.ts";
export {
  COPY_PREFIX,
  type CopyChanges,
  createIsolatedCopy,
  type IsolatedCopy,
} from "./subagents/workspace-copy.ts";
export { BUILTIN_SYSTEM_PROMPT, createSystemPrompt, MAX_AGENTS_MD_BYTES } from "./system-prompt.ts";
