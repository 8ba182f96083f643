import {
  type ArtifactStore,
  createFinishGate,
  type FinishGate,
  type Limits,
  type ModelPrice,
  type ModelRequest,
  type ModelRetryOptions,
  type Provider,
  type Redactor,
  type RunAccount,
  type RunExtension,
  type RunOptions,
  type ToolRegistry,
  type ToolSet,
} from "@coding-agent/agent-core";
import { type Approver, createFileArtifactStore, type KeepOutput } from "@coding-agent/tools";
import {
  orderRunExtensions,
  prepareRunFeatures,
  type RunExtensionParts,
} from "../run-extensions.ts";
import type { RunSpec } from "../run-spec.ts";
import type { RunToolsOptions } from "../run-tools.ts";
import type { WorkspaceTracker } from "../state/workspace-tracker.ts";
import type { RunTrace } from "../trace/run-trace.ts";

/**
 * How a run is being built. `fresh` and `resume` are the runs of `run` and `resume`,
 * `child` a subagent's run inside its parent, `replay` a finished run again on its log.
 */
export type RunMode = "fresh" | "resume" | "replay" | "child";

/** Where a run's tools work, and what differs there by mode. */
export interface ToolPlace {
  /** The folder the tools are bound to (a child's copy; an empty one for a replay). */
  readonly workspace: string;
  readonly approver?: Approver;
  /** The test command already resolved (a child runs its parent's). */
  readonly testCommand?: string;
  /** A child's own `allowPaths`, when its spawn named some. */
  readonly allowPaths?: readonly string[];
  /** Files the tools must not write (hook scripts, an MCP config inside the workspace). */
  readonly protectedFiles?: readonly string[];
  /** The run's redactor: results are measured as the model sees them. */
  readonly redact: Redactor;
  /**
   * The run's one artifact store (`createRunArtifacts`): where `run_command` and `run_tests`
   * keep an output cut to the observation budget (a replay's tools never run: none). The
   * same store goes to `assembleRun`, so `read_artifact` reads what the tools kept.
   */
  readonly artifacts?: ArtifactStore;
}

/**
 * A run's one artifact store, over its `artifacts/` folder (a child's
 * `subagents/<k>/artifacts/`, a replay's scratch folder): made once per run and handed both
 * to the tools that keep output (`runToolsOptions`) and to the features (`assembleRun`:
 * `read_artifact`, the context budget). One store, one rule for naming (`<callId>-<n>`, `n`
 * counted per call id or tool name), for never overwriting and for reading ids back; what
 * it is given is already redacted with the run's one redactor.
 */
export function createRunArtifacts(dir: string): ArtifactStore {
  return createFileArtifactStore(dir);
}

/**
 * `prepareRunTools`' options for a spec, the same in every mode but where the tools work.
 * A replay's tools never run: no sandbox is chosen for them.
 */
export function runToolsOptions(spec: RunSpec, mode: RunMode, place: ToolPlace): RunToolsOptions {
  const testCommand = place.testCommand ?? spec.testCommand;
  return {
    workspace: place.workspace,
    allowCommands: spec.allowCommands,
    approval: spec.approval,
    sandbox: mode === "replay" ? "none" : spec.sandbox,
    ...(place.approver === undefined ? {} : { approver: place.approver }),
    ...(testCommand === undefined ? {} : { testCommand }),
    allowPaths: place.allowPaths ?? spec.allowPaths,
    ...(place.protectedFiles === undefined ? {} : { protectedFiles: place.protectedFiles }),
    // One value for the tools' paging and the loop's cap: a tool never returns more
    // than the loop passes on, so what it says it left out is what is missing.
    maxObservationChars: spec.maxObservationChars,
    redact: place.redact,
    wholeCommandOutput: wholeCommandOutput(spec),
    ...(place.artifacts === undefined ? {} : { keepOutput: keepOutputIn(place.artifacts) }),
  };
}

/** Keeps a tool's whole output in the run's store, named after the tool (`run_tests-1`). */
function keepOutputIn(store: ArtifactStore): KeepOutput {
  return (text, tool) => store.put(text, { callId: tool, tool });
}

/**
 * Whether `run_command` hands its output back whole: with a context budget the run keeps a
 * large result as an artifact instead of the tool cutting it.
 */
export function wholeCommandOutput(spec: RunSpec): boolean {
  return spec.maxContextTokens !== undefined;
}

/**
 * The limits `runAgent` enforces: the spec's, but `--max-repeated-actions`, which the loop
 * detection counts by observation (see `prepareRunFeatures`), not the guard.
 */
export function loopLimits(spec: RunSpec): Limits {
  const { maxRepeatedActions: _counted, ...limits } = spec.limits;
  return limits;
}

/** A run's finish gate over its workspace tracker (a parent's and a child's alike). */
export function createRunGate(
  tracker: WorkspaceTracker,
  isAllowed: (file: string) => boolean,
  enforce: boolean,
): FinishGate {
  return createFinishGate({
    startVersion: tracker.start.version,
    inspect: () => tracker.inspect(),
    versionAfter: async (callId) => tracker.versionAfter(callId) ?? tracker.current,
    isAllowed,
    enforce,
  });
}

/** What `assembleRun` puts together, besides the spec and the mode. */
export interface AssemblyInput {
  readonly spec: RunSpec;
  readonly mode: RunMode;
  readonly redact: Redactor;
  readonly provider: Provider;
  /** The workspace tools (`prepareRunTools`). */
  readonly tools: ToolSet;
  /** Tools beside them: the MCP servers' (live or recorded), `spawn_agent`. */
  readonly moreTools?: ToolSet;
  /** The whole tool set as the loop sees it (an MCP registry finds a down server's tools). */
  readonly registry?: (tools: ToolSet) => ToolSet | ToolRegistry;
  /** A replay's stand-ins: the tools as offered, each `execute` answered from the log. */
  readonly standIns?: (tools: ToolSet) => ToolSet;
  /**
   * The run's one artifact store (`createRunArtifacts`), the one its tools keep output in:
   * `read_artifact` reads from it, the context budget writes to it.
   */
  readonly artifacts: ArtifactStore;
  /** The workspace version after the latest tool call. */
  readonly version?: () => string | undefined;
  /** A real model's system prompt for a request (counted in the context budget). */
  readonly system?: (request: ModelRequest) => Promise<string>;
  /** The mode's extensions, each placed in the one order (`orderRunExtensions`). */
  readonly extensions: Omit<RunExtensionParts, "features">;
  readonly price: ModelPrice | null;
  readonly costOf?: RunOptions["costOf"];
  readonly trace?: RunTrace;
  readonly retry?: ModelRetryOptions;
  /**
   * The run's account (a parent's with `--subagents`, a replay's of such a run): what its
   * children spent is charged to it and counts against the run's budgets with its own.
   */
  readonly account?: RunAccount;
}

/** A run ready for `runAgent`. */
export interface RunAssembly {
  readonly provider: Provider;
  readonly tools: ToolSet | ToolRegistry;
  readonly limits: Limits;
  readonly options: RunOptions;
}

/**
 * The one assembly of a run, in every mode: the week-5 features from the spec, the tools
 * the model is offered, the extensions in their one order, the limits and `runAgent`'s
 * options. What differs by mode comes in as pieces (the provider, the mode's extensions,
 * the tools beside the workspace's); how they are put together does not differ.
 */
export async function assembleRun(input: AssemblyInput): Promise<RunAssembly> {
  const { spec, redact } = input;
  const features = await prepareRunFeatures({
    spec,
    redact,
    artifacts: input.artifacts,
    ...(input.version === undefined ? {} : { version: input.version }),
    ...(input.system === undefined ? {} : { system: input.system }),
  });
  const offered = { ...input.tools, ...features.tools, ...input.moreTools };
  const all = input.standIns === undefined ? offered : input.standIns(offered);
  const extensions: RunExtension[] = orderRunExtensions({
    ...input.extensions,
    features: features.extensions,
  });
  const { trace, retry, costOf, account } = input;
  return {
    provider: input.provider,
    tools: input.registry === undefined ? all : input.registry(all),
    limits: loopLimits(spec),
    options: {
      redact,
      maxObservationChars: spec.maxObservationChars,
      maxFinishRejections: spec.maxFinishRejections,
      extensions,
      price: input.price,
      ...(costOf === undefined ? {} : { costOf }),
      ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }),
      ...(trace === undefined ? {} : { requiredTrace: trace.requiredTrace }),
      ...(trace?.trace === undefined ? {} : { trace: trace.trace }),
      ...(retry === undefined ? {} : { retry }),
      ...(account === undefined ? {} : { account }),
    },
  };
}
