import { mkdir } from "node:fs/promises";
import path from "node:path";
import {
  createFinishGate,
  type ModelPrice,
  type ModelRetryOptions,
  type Provider,
  type Redactor,
  type RunExtension,
  runAgent,
} from "@coding-agent/agent-core";
import type { Approver } from "@coding-agent/tools";
import { createPathAllowance, type PathAllowance } from "@coding-agent/tools";
import { hookExtensions } from "../hooks/index.ts";
import type { HookEntry } from "../hooks/settings.ts";
import { orderRunExtensions, prepareRunFeatures } from "../run-extensions.ts";
import type { RunSpec } from "../run-spec.ts";
import { prepareRunTools } from "../run-tools.ts";
import { createWorkspaceTracker } from "../state/workspace-tracker.ts";
import { openRunTrace } from "../trace/run-trace.ts";
import type { ChildBudget, ChildOutcome, ChildRunner, ChildSpec } from "./spawn-agent.ts";
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
  const allowPaths = spec.allowPaths.length > 0 ? spec.allowPaths : parent.allowPaths;
  const childAllows = createPathAllowance(allowPaths);
  const allows = (file: string) => options.parentAllows(file) && childAllows(file);
  const tools = await prepareRunTools({
    workspace,
    allowCommands: parent.allowCommands,
    approval: parent.approval,
    sandbox: parent.sandbox,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    ...(options.testCommand === undefined ? {} : { testCommand: options.testCommand }),
    allowPaths,
    maxObservationChars: parent.maxObservationChars,
    redact,
    wholeCommandOutput: parent.maxContextTokens !== undefined,
  });
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
  const gate = createFinishGate({
    startVersion: tracker.start.version,
    inspect: () => tracker.inspect(),
    versionAfter: async (callId) => tracker.versionAfter(callId) ?? tracker.current,
    isAllowed: allows,
    enforce: options.enforceTests,
  });
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
  const features = await prepareRunFeatures({
    spec: {
      ...parent,
      limits: { ...budget.limits, maxRepeatedActions: parent.limits.maxRepeatedActions },
    },
    redact,
    artifactsDir: path.join(dir, "artifacts"),
    version: () => tracker.current,
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
    const result = await runAgent(
      spec.goal,
      options.provider(spec.goal),
      { ...tools.tools, ...features.tools },
      budget.limits,
      signal,
      {
        redact,
        maxObservationChars: parent.maxObservationChars,
        maxFinishRejections: parent.maxFinishRejections,
        // The parent's order (one function owns it): the gate before a PostToolUse hook, …
        extensions: orderRunExtensions({
          gate,
          hooks,
          recorder: versions,
          features: features.extensions,
        }),
        price: options.price,
        ...(budget.maxCostUsd === undefined ? {} : { maxCostUsd: budget.maxCostUsd }),
        requiredTrace: traced.requiredTrace,
        ...(traced.trace === undefined ? {} : { trace: traced.trace }),
        ...(options.retry === undefined ? {} : { retry: options.retry }),
      },
    );
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
