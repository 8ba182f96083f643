import { mkdir } from "node:fs/promises";
import path from "node:path";
import {
  type ModelPrice,
  type ModelRequest,
  type ModelRetryOptions,
  type Provider,
  type Redactor,
  type RunExtension,
  runAgent,
} from "@coding-agent/agent-core";
import type { Approver } from "@coding-agent/tools";
import { createPathAllowance, type PathAllowance } from "@coding-agent/tools";
import {
  assembleRun,
  createRunArtifacts,
  createRunGate,
  runToolsOptions,
} from "../assembly/run-assembly.ts";
import { hookExtensions } from "../hooks/index.ts";
import type { HookEntry } from "../hooks/settings.ts";
import type { RunSpec } from "../run-spec.ts";
import { prepareRunTools } from "../run-tools.ts";
import { createWorkspaceTracker } from "../state/workspace-tracker.ts";
import { openRunTrace } from "../trace/run-trace.ts";
import type { ChildBudget, ChildOutcome, ChildRunner, ChildSpec } from "./child-runner.ts";
import { createIsolatedCopy } from "./workspace-copy.ts";

/** What a child takes over from its parent run. */
export interface ChildRunOptions {
  readonly parent: RunSpec;
  /** The parent's workspace (real path). */
  readonly workspace: string;
  readonly runId: string;
  readonly runDir: string;
  /** The model a child with this goal talks to (the fake model: the turns tagged with it). */
  readonly provider: (goal: string) => Provider;
  /** A real model's system prompt for a request: the parent's (a child works on its copy of the same repository). */
  readonly system?: (request: ModelRequest) => Promise<string>;
  readonly redact: Redactor;
  readonly price: ModelPrice | null;
  readonly retry?: ModelRetryOptions;
  /** The parent's resolved test command (its package.json as the run started). */
  readonly testCommand?: string;
  /** Whether the parent's finish gate enforces tests: the child's does the same. */
  readonly enforceTests: boolean;
  readonly approver?: Approver;
  /** The parent's hook entries: the child's tool calls go through the same hooks. */
  readonly hooks: readonly HookEntry[];
  readonly parentAllows: PathAllowance;
  readonly env: NodeJS.ProcessEnv;
  readonly warn: (line: string) => void;
}

/**
 * A child run (lesson 39): the same runtime as the parent's — the CLI's tools, hooks,
 * finish gate, loop detection, its own trace under `<runDir>/subagents/<n>/` — inside an
 * isolated copy of the workspace, with the carved budget. No state log (a child is not
 * resumed: a resumed parent answers a finished spawn_agent call from its log and starts
 * an unfinished one again) and no MCP servers or nested spawn_agent. The copy is removed
 * on every path; what comes back is the diff of its changes within the allowed paths.
 */
export function createChildRunner(options: ChildRunOptions): ChildRunner {
  return async (spec, budget, signal, index) => {
    const copy = await createIsolatedCopy(options.workspace);
    try {
      return await runInCopy(options, spec, budget, signal, index, copy.workspace, (allows) =>
        copy.changes(allows),
      );
    } finally {
      await copy.remove();
    }
  };
}

async function runInCopy(
  options: ChildRunOptions,
  spec: ChildSpec,
  budget: ChildBudget,
  signal: AbortSignal,
  index: number,
  workspace: string,
  changes: (
    allows: (file: string) => boolean,
  ) => ReturnType<Awaited<ReturnType<typeof createIsolatedCopy>>["changes"]>,
): Promise<ChildOutcome> {
  const { parent, redact } = options;
  const childAllows = createPathAllowance(
    spec.allowPaths.length > 0 ? spec.allowPaths : parent.allowPaths,
  );
  const allows = (file: string) => options.parentAllows(file) && childAllows(file);
  const run = childSpec(parent, spec.goal, budget);
  // The child's one store, in its own folder: its tools keep output in it, read_artifact reads it.
  const artifacts = createRunArtifacts(
    path.join(options.runDir, "subagents", String(index), "artifacts"),
  );
  const tools = await prepareRunTools(
    runToolsOptions(run, "child", {
      workspace,
      ...(options.approver === undefined ? {} : { approver: options.approver }),
      ...(options.testCommand === undefined ? {} : { testCommand: options.testCommand }),
      ...(spec.allowPaths.length > 0 ? { allowPaths: spec.allowPaths } : {}),
      redact,
      artifacts,
    }),
  );
  if (!tools.ok) throw new Error(tools.message);
  const dir = path.join(options.runDir, "subagents", String(index));
  await mkdir(dir, { recursive: true });
  const childId = `${options.runId}.${index}`;
  const tracker = await createWorkspaceTracker(tools.workspaceRoot);
  const versions: RunExtension = {
    name: "workspace-version",
    async afterToolCall(call) {
      await tracker.afterCall(call);
      return undefined;
    },
  };
  const hooks = hookExtensions({
    entries: options.hooks,
    runId: childId,
    workspace: tools.workspaceRoot,
    redact,
    env: options.env,
    warn: options.warn,
    // A child has no state log: its hooks' decisions are in its trace.
    log: { record: async () => {} },
  });
  const traces = await openRunTrace({
    runDir: dir,
    runId: childId,
    redact,
    // The child's trace is a file of its own; it is not exported to OTLP.
    env: {},
    providerName: parent.provider.name,
    model: parent.provider.model,
    warn: (message) => options.warn(`警告：${message}\n`),
  });
  if (!traces.ok) throw new Error(traces.message);
  const traced = traces.trace;
  try {
    // The parent's assembly (one function owns it): the gate before a PostToolUse hook, …
    const assembled = await assembleRun({
      spec: run,
      mode: "child",
      redact,
      provider: options.provider(spec.goal),
      ...(options.system === undefined ? {} : { system: options.system }),
      tools: tools.tools,
      artifacts,
      version: () => tracker.current,
      extensions: {
        gate: createRunGate(tracker, allows, options.enforceTests),
        hooks,
        recorder: versions,
      },
      price: options.price,
      trace: traced,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
    const { provider, tools: offered, limits, options: runOptions } = assembled;
    const result = await runAgent(spec.goal, provider, offered, limits, signal, runOptions);
    // A cancelled child's copy goes at once: nothing of it is read.
    const changed = signal.aborted ? { patch: "", files: [], excluded: [] } : await changes(allows);
    return {
      status: result.status,
      code: result.code,
      summary: result.summary,
      patch: changed.patch,
      files: changed.files,
      excluded: changed.excluded,
      steps: result.steps,
      toolCalls: result.toolCalls,
      usage: result.usage,
      costUsd: result.costUsd,
    };
  } finally {
    await traced.end();
  }
}

/**
 * A child's spec: its parent's, with its own goal and the budget carved for it (the loop
 * detection keeps the parent's `--max-repeated-actions`).
 */
function childSpec(parent: RunSpec, goal: string, budget: ChildBudget): RunSpec {
  const { maxCostUsd: _parentsCost, ...rest } = parent;
  return {
    ...rest,
    goal,
    limits: { ...budget.limits, maxRepeatedActions: parent.limits.maxRepeatedActions },
    ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }),
  };
}
