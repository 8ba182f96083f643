import {
  createRunAccount,
  type FinishGate,
  type ModelRetryOptions,
  type RetryPolicy,
  type RunAccount,
} from "@coding-agent/agent-core";
import { createPathAllowance, type PathAllowance } from "@coding-agent/tools";
import type { CliIo } from "../cli-io.ts";
import { hookExtensions } from "../hooks/index.ts";
import type { McpSession } from "../mcp/index.ts";
import type { CliEnv } from "../model-provider.ts";
import type { RunExtensionParts } from "../run-extensions.ts";
import type { RunSpec } from "../run-spec.ts";
import { demoSkipsFinishGate } from "../script-file.ts";
import { editPredictor } from "../state/predict-edits.ts";
import { createRunRecorder, type RunRecorder } from "../state/recorder.ts";
import { createResumeExtension } from "../state/resume.ts";
import { createChildRunner } from "../subagents/child-run.ts";
import { createSubagents, type Subagents } from "../subagents/spawn-agent.ts";
import { CHARGED_AS } from "../subagents/spend.ts";
import { assembleRun, createRunGate, loopLimits, type RunAssembly } from "./run-assembly.ts";
import type { RunInputs } from "./run-inputs.ts";
import { lastChildIndex, type ResumedRun, type RunRecords } from "./run-records.ts";

/** The pieces only a parent run (`run`, `resume`) has, ready for `assembleRun`. */
export interface ParentRunParts {
  readonly extensions: Omit<RunExtensionParts, "features">;
  readonly gate: FinishGate;
  readonly recorder: RunRecorder;
  readonly subagents?: Subagents;
  readonly retry?: ModelRetryOptions;
  /** With `--subagents`: the run's account, its children's spend charged to it. */
  readonly account?: RunAccount;
}

/** What a parent run's pieces are made from. */
export interface ParentRunContext {
  readonly spec: RunSpec;
  readonly inputs: RunInputs;
  readonly records: RunRecords;
  readonly resume: ResumedRun | undefined;
  readonly io: CliIo;
  readonly env: CliEnv;
  readonly signal: AbortSignal;
}

/** A parent run, assembled: ready for `runAgent`, with what its end needs. */
export interface ParentRun extends Omit<ParentRunParts, "extensions" | "retry" | "account"> {
  readonly run: RunAssembly;
}

/** `assembleRun` for `run` and `resume`: the parent's pieces, its MCP servers and its records. */
export async function assembleParentRun(
  context: ParentRunContext & { readonly servers: McpSession | undefined },
): Promise<ParentRun> {
  const { spec, inputs, records, resume, servers } = context;
  const { extensions, retry, account, ...parent } = await parentRunParts(context);
  const run = await assembleRun({
    spec,
    mode: resume === undefined ? "fresh" : "resume",
    redact: inputs.redact,
    provider: inputs.model.provider,
    tools: inputs.tools.tools,
    moreTools: { ...servers?.tools, ...parent.subagents?.tools },
    ...(servers === undefined ? {} : { registry: (tools) => servers.registry(tools) }),
    artifacts: inputs.artifacts,
    // Set by the recorder's afterToolCall, which runs before the loop detection's.
    version: () => records.tracker.current,
    ...(inputs.model.system === undefined ? {} : { system: inputs.model.system }),
    extensions,
    price: inputs.price.price,
    ...(inputs.pricing === undefined ? {} : { costOf: inputs.pricing.costOf }),
    trace: records.traced,
    ...(retry === undefined ? {} : { retry }),
    // The one account of the parent's and its children's spending: its guard counts both.
    ...(account === undefined ? {} : { account }),
  });
  return { ...parent, run };
}

/**
 * A parent run's recorder (the state log), finish gate, hooks, resume answers, retry and,
 * with `--subagents`, the children's scheduler.
 */
async function parentRunParts(context: ParentRunContext): Promise<ParentRunParts> {
  const { spec, inputs, records, resume, io, env } = context;
  const workspace = inputs.tools.workspaceRoot;
  const recorder = createRunRecorder({
    runId: records.runId,
    log: records.log,
    tracker: records.tracker,
    predictEdit: editPredictor(workspace, spec.allowPaths),
    journal: records.journal,
    ...(inputs.model.turns === undefined ? {} : { turns: inputs.model.turns }),
    ...(resume === undefined ? {} : { logged: resume.plan.logged }),
  });
  const allowance = createPathAllowance(spec.allowPaths);
  const gate = createRunGate(records.tracker, allowance, enforcesTests(spec, inputs));
  if (resume !== undefined) gate.restoreTests(resume.plan.tests);
  const hooks = hookExtensions({
    entries: inputs.settings.hooks,
    runId: records.runId,
    workspace,
    redact: inputs.redact,
    env: { ...env },
    warn: (line) => io.stderr(line),
    log: records.log,
  });
  const retry = retryOf(spec, inputs);
  const account =
    (spec.subagents ?? 0) > 0 ? createRunAccount({ chargedAs: CHARGED_AS }) : undefined;
  const subagents =
    account === undefined
      ? undefined
      : await subagentsOf({ ...context, recorder, allowance, retry, account });
  return {
    extensions: {
      ...(resume === undefined
        ? {}
        : {
            resume: createResumeExtension(resume.plan, workspace, { journal: records.journal }),
          }),
      gate,
      hooks,
      recorder,
      ...(subagents === undefined ? {} : { subagents: subagents.extension }),
    },
    gate,
    recorder,
    ...(subagents === undefined ? {} : { subagents }),
    ...(retry === undefined ? {} : { retry }),
    ...(account === undefined ? {} : { account }),
  };
}

/**
 * `auto` is `tests` when the run has a test command (docs/contracts.md §7), except for the built-in
 * demo in a workspace whose only test command is its package.json script (see
 * `demoSkipsFinishGate`).
 */
function enforcesTests(spec: RunSpec, inputs: RunInputs): boolean {
  if (spec.finishGate !== "auto") return spec.finishGate === "tests";
  return inputs.tools.testCommand !== undefined && !demoSkipsFinishGate(spec);
}

/** A fallback model needs the retry machinery even without retries: it decides when to ask it. */
function retryOf(spec: RunSpec, inputs: RunInputs): ModelRetryOptions | undefined {
  const { fallback } = inputs.model;
  if (spec.retries === 0 && fallback === undefined) return undefined;
  return {
    policy: retryPolicy(spec.retries),
    ...(fallback === undefined
      ? {}
      : { fallback: { ...fallback, price: inputs.price.fallbackPrice ?? null } }),
  };
}

/** Backoff of the CLI's model retries: 0.5 s doubling up to 8 s, with jitter. */
function retryPolicy(retries: number): RetryPolicy {
  return { maxAttempts: retries + 1, baseDelayMs: 500, maxDelayMs: 8_000 };
}

/**
 * Subagents (lesson 39), with `--subagents`: last among the extensions, so a spawn_agent
 * call they see is one that nothing before them answered or vetoed. Each child's spend is
 * charged to `account`, the parent run's.
 */
async function subagentsOf(
  context: ParentRunContext & {
    readonly recorder: RunRecorder;
    readonly allowance: PathAllowance;
    readonly retry: ModelRetryOptions | undefined;
    readonly account: RunAccount;
  },
): Promise<Subagents> {
  const { spec, inputs, records, resume, io, env, recorder, retry } = context;
  const { redact, tools } = inputs;
  return createSubagents({
    limit: spec.subagents ?? 1,
    limits: loopLimits(spec),
    account: context.account,
    ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }),
    parentAllows: context.allowance,
    signal: context.signal,
    notify: (line) => io.stderr(redact(line)),
    // A resumed run is charged what its children spent before, and numbers new ones after them.
    ...(resume === undefined
      ? {}
      : { spentBefore: resume.plan.subagents, firstIndex: await lastChildIndex(records.runDir) }),
    onChildEnd: ({ index, callId, outcome }) => {
      void recorder.note({
        type: "subagent_finished",
        index,
        callId,
        status: outcome.status,
        code: outcome.code,
        steps: outcome.steps,
        toolCalls: outcome.toolCalls,
        usage: outcome.usage,
        costUsd: outcome.costUsd,
      });
    },
    runChild: createChildRunner({
      parent: spec,
      workspace: tools.workspaceRoot,
      runId: records.runId,
      runDir: records.runDir,
      provider: inputs.model.child,
      ...(inputs.model.system === undefined ? {} : { system: inputs.model.system }),
      redact,
      price: inputs.price.price,
      ...(retry === undefined ? {} : { retry }),
      ...(tools.testCommand === undefined ? {} : { testCommand: tools.testCommand }),
      enforceTests: enforcesTests(spec, inputs),
      ...(io.approver === undefined ? {} : { approver: io.approver }),
      hooks: inputs.settings.hooks,
      parentAllows: context.allowance,
      env: { ...env },
      warn: (line) => io.stderr(line),
    }),
  });
}
