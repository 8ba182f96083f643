import { readdir, readFile, realpath, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  createFinishGate,
  createRedactor,
  type ModelPrice,
  type ModelRequest,
  type Provider,
  type Redactor,
  type RetryPolicy,
  type RunResult,
  runAgent,
} from "@coding-agent/agent-core";
import { createScriptedProvider, type ScriptedTurn } from "@coding-agent/agent-core/testing";
import { createPathAllowance, type WorkspaceState } from "@coding-agent/tools";
import type { RunCommand } from "./args.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { hookExtensions, loadHookSettings } from "./hooks/index.ts";
import { mcpSecretValues, prepareMcp, resolveMcpServers } from "./mcp/index.ts";
import { type CliEnv, createModelBackend } from "./model-provider.ts";
import { pricedModel, resolvePrice, unknownPriceMessage } from "./pricing-file.ts";
import { printRunResult } from "./print-result.ts";
import { orderRunExtensions, prepareRunFeatures } from "./run-extensions.ts";
import { codingAgentHome, createRunDir, newRunId, runDirOf } from "./run-files.ts";
import { parseRecordedSpec, type RunSpec } from "./run-spec.ts";
import { prepareRunTools } from "./run-tools.ts";
import {
  BUILT_IN_DEMO_GATE_NOTE,
  defaultScript,
  demoSkipsFinishGate,
  explainScriptEnd,
  loadScriptFile,
  routeScript,
} from "./script-file.ts";
import { createEditJournal } from "./state/edit-journal.ts";
import { openStateLog, readStateLog, type StateLog } from "./state/log.ts";
import { editPredictor } from "./state/predict-edits.ts";
import { type RecordedPricing, recordedPricing } from "./state/recorded-price.ts";
import { createRunRecorder } from "./state/recorder.ts";
import {
  createResumeExtension,
  planResume,
  type ResumePlan,
  removeCrashLeftovers,
  replayingProvider,
} from "./state/resume.ts";
import { acquireRunLock, type RunLock } from "./state/run-lock.ts";
import { createWorkspaceTracker } from "./state/workspace-tracker.ts";
import { createTextEcho, endingEcho } from "./stream-echo.ts";
import { createChildRunner } from "./subagents/child-run.ts";
import { createSubagents, withChildSpend } from "./subagents/spawn-agent.ts";
import { createSystemPrompt } from "./system-prompt.ts";
import { openRunTrace, TRACE_FILE } from "./trace/run-trace.ts";

/** The start state of a run's workspace, beside its state log (a resume counts changes from it). */
const START_FILES = "start-files.json";

/** `coding-agent run`: a new run with its own folder under `$CODING_AGENT_HOME/runs/`. */
export async function startRun(
  command: RunCommand,
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv,
): Promise<number> {
  // The new run's folder is locked as soon as it exists (see openRunFiles): a resume of
  // it while it runs is refused.
  const owner: RunOwner = {};
  try {
    const { spec, json } = command;
    return await execute({ spec, json, io, signal, env, resume: undefined, owner });
  } finally {
    await owner.lock?.release();
  }
}

/** The lock a run holds while it runs (docs/contracts.md §8 "One owner per run"). */
interface RunOwner {
  lock?: RunLock;
}

/** `coding-agent resume <runId>`: continues an unfinished run from its state log. */
export async function resumeRun(
  runId: string,
  json: boolean,
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv,
): Promise<number> {
  const runDir = runDirOf(codingAgentHome(env), runId);
  // One owner per run: taken before the log is read (or a torn line cut off), so a live
  // run's log is never touched. A folder that cannot hold a lock is judged by its log below.
  const owned = await acquireRunLock(runDir);
  if (!owned.ok && owned.reason === "held") {
    io.stderr(
      `无法继续运行 ${runId}：它正由进程 ${owned.pid} 运行或继续，同一个运行同时只能有一个进程（等那个进程结束后再 resume）\n`,
    );
    return EXIT_CODES.usage;
  }
  try {
    return await resumeOwned(runId, runDir, json, { io, signal, env });
  } finally {
    if (owned.ok) await owned.lock.release();
  }
}

async function resumeOwned(
  runId: string,
  runDir: string,
  json: boolean,
  context: { readonly io: CliIo; readonly signal: AbortSignal; readonly env: CliEnv },
): Promise<number> {
  const { io, signal, env } = context;
  const read = await readStateLog(path.join(runDir, "state.jsonl"));
  if (!read.ok) {
    io.stderr(`无法继续运行 ${runId}：${read.message}\n`);
    return EXIT_CODES.usage;
  }
  if (read.warning !== undefined) io.stderr(`警告：${read.warning}\n`);
  const planned = planResume(read.events);
  if (!planned.ok) {
    io.stderr(
      planned.finished
        ? `运行 ${runId} 已经结束（${planned.status}，${planned.code}），不能继续\n`
        : `无法继续运行 ${runId}：${planned.message}\n`,
    );
    return EXIT_CODES.usage;
  }
  const recorded = parseRecordedSpec(planned.plan.started.options);
  if (!recorded.ok) {
    io.stderr(`无法继续运行 ${runId}：state.jsonl 的 ${recorded.message}\n`);
    return EXIT_CODES.usage;
  }
  // A torn last line is cut off before anything is appended after it.
  await truncate(path.join(runDir, "state.jsonl"), read.bytes);
  const start = await readStartFiles(runDir, planned.plan.started.startVersion);
  return execute({
    spec: recorded.spec,
    json,
    io,
    signal,
    env,
    resume: { runId, runDir, plan: planned.plan, start },
  });
}

interface Session {
  readonly spec: RunSpec;
  /** `--json`: of this command (a resume's own, not the recorded run's). */
  readonly json: boolean;
  readonly io: CliIo;
  readonly signal: AbortSignal;
  readonly env: CliEnv;
  /** Where a new run keeps the lock it takes on its folder (a resume holds its own). */
  readonly owner?: RunOwner;
  readonly resume:
    | {
        readonly runId: string;
        readonly runDir: string;
        readonly plan: ResumePlan;
        readonly start: WorkspaceState | undefined;
      }
    | undefined;
}

async function execute(session: Session): Promise<number> {
  const { spec, json, io, signal, env, resume } = session;
  // A resume's recorded replies: one the fallback model gave costs the fallback's price.
  const pricing = resume === undefined ? undefined : recordedPricing(spec.fallbackPrice);
  const model = await chooseModel(spec, env, resume?.plan, io, pricing);
  if (!model.ok) {
    io.stderr(`${model.message}\n`);
    return EXIT_CODES.usage;
  }
  const price = await priceOfRun(spec);
  if (!price.ok) {
    io.stderr(`${price.message}\n`);
    return EXIT_CODES.usage;
  }
  // Hooks of the user, and of the workspace only when it is trusted (docs/contracts.md §7, lesson 36).
  // Loaded before the tools: the scripts they run are files the tools must not write.
  const realWorkspace = await realpath(spec.workspace).catch(() => undefined);
  const settings = await loadHookSettings({
    workspace: realWorkspace ?? path.resolve(spec.workspace),
    home: codingAgentHome(env),
    // A missing workspace is reported by the tools below; nothing is recorded as trusted.
    trustWorkspace: spec.trustWorkspace === true && realWorkspace !== undefined,
  });
  if (!settings.ok) {
    io.stderr(`${settings.message}\n`);
    return EXIT_CODES.usage;
  }
  // MCP servers (lesson 37) are resolved before anything is redacted: what they are given
  // under secret-looking names is masked in everything the run writes. A bad definition
  // is reported below, where it always was.
  const mcpServers = await resolveMcpServers({
    settingsServers: settings.mcpServers,
    configFile: spec.mcpConfig,
    env,
  });
  const redact = withSecrets(
    model.redact,
    mcpServers.ok ? mcpSecretValues(mcpServers.servers) : [],
  );
  const wholeCommandOutput = spec.maxContextTokens !== undefined;
  const tools = await prepareRunTools({
    workspace: spec.workspace,
    allowCommands: spec.allowCommands,
    approval: spec.approval,
    sandbox: spec.sandbox,
    ...(io.approver === undefined ? {} : { approver: io.approver }),
    ...(spec.testCommand === undefined ? {} : { testCommand: spec.testCommand }),
    allowPaths: spec.allowPaths,
    protectedFiles: [...settings.scripts, ...(await mcpConfigInside(spec))],
    // One value for the tools' paging and the loop's cap: a tool never returns more
    // than the loop passes on, so what it says it left out is what is missing.
    maxObservationChars: spec.maxObservationChars,
    redact: redact,
    wholeCommandOutput,
  });
  if (!tools.ok) {
    io.stderr(`${tools.message}\n`);
    return EXIT_CODES.usage;
  }
  if (spec.finishGate === "tests" && tools.testCommand === undefined) {
    io.stderr(
      "--finish-gate tests 需要测试命令：用 --test-command 指定，或在工作区 package.json 里写 test 脚本\n",
    );
    return EXIT_CODES.usage;
  }
  if (tools.warning !== undefined) io.stderr(`${tools.warning}\n`);
  if (tools.testCommand !== undefined && demoSkipsFinishGate(spec))
    io.stderr(`${BUILT_IN_DEMO_GATE_NOTE}\n`);
  if (settings.warning !== undefined) io.stderr(`${settings.warning}\n`);
  const workspace = tools.workspaceRoot;
  if (!mcpServers.ok) {
    io.stderr(`${mcpServers.message}\n`);
    return EXIT_CODES.usage;
  }
  // Started before the log opens, so run_started records their tools.
  const servers = await prepareMcp({
    servers: mcpServers.servers,
    workspace,
    approval: spec.approval,
    ...(io.approver === undefined ? {} : { approver: io.approver }),
    allowTools: spec.allowTools ?? [],
    redact,
    warn: (line) => io.stderr(line),
    signal,
  });
  const runId = resume?.runId ?? newRunId();
  const files = await openRunFiles(session, runId, redact).catch((error: Error) => error);
  if (files instanceof Error) {
    await servers?.close();
    return printRunResult(io, {
      json: json,
      result: stateFailed(`运行目录无法写入：${files.message}`),
    });
  }
  const { runDir, log } = files;
  if (resume !== undefined) {
    // Before the workspace is read: a killed write's temporary file is no change of the run's.
    const removed = await removeCrashLeftovers(resume.plan, workspace);
    if (removed.length > 0)
      io.stderr(`coding-agent：删除了中断的写入留下的临时文件 ${removed.join("、")}\n`);
  }
  const journal = createEditJournal(runDir);
  const tracker = await createWorkspaceTracker(workspace, {
    ...(resume?.start === undefined ? {} : { start: resume.start }),
    ...(resume === undefined ? {} : { recorded: resume.plan.versions }),
  });
  if (resume === undefined) {
    const options = {
      ...spec,
      workspace,
      ...scriptPathOf(spec),
      price: price.price,
      ...(price.fallbackPrice === undefined ? {} : { fallbackPrice: price.fallbackPrice }),
      ...(servers === undefined ? {} : { mcp: servers.record }),
    };
    const written = await Promise.all([
      writeFile(
        path.join(runDir, START_FILES),
        JSON.stringify(Object.fromEntries(tracker.start.files)),
        {
          mode: 0o600,
        },
      ),
      log.append(
        {
          type: "run_started",
          runId,
          startedAt: new Date().toISOString(),
          goal: spec.goal,
          workspace,
          options,
          startVersion: tracker.start.version,
        },
        { sync: true },
      ),
    ]).catch((error: Error) => error);
    if (written instanceof Error) {
      await servers?.close();
      await log.close().catch(() => {});
      return printRunResult(io, {
        json: json,
        result: stateFailed(`状态日志无法写入：${written.message}`),
        runId,
        runDir,
      });
    }
  } else {
    await log.append({ type: "resumed", at: new Date().toISOString(), fromSeq: log.nextSeq - 1 });
    io.stderr(`coding-agent：继续运行 ${runId}（已记录 ${resume.plan.replies.length} 步）\n`);
  }

  const traces = await openRunTrace({
    runDir,
    runId,
    redact: redact,
    env,
    providerName: spec.provider.name,
    model: spec.provider.model,
    warn: (message) => io.stderr(`警告：${message}\n`),
    ...(io.traceWriter === undefined ? {} : { writer: io.traceWriter }),
    ...(resume === undefined
      ? {}
      : {
          resume: { startedAt: resume.plan.started.startedAt, steps: resume.plan.replies.length },
        }),
  });
  if (!traces.ok) {
    await servers?.close();
    await log.close().catch(() => {});
    const failed = traceFailed(traces.message);
    io.stderr(traceFailedMessage(path.join(runDir, TRACE_FILE), failed.reason));
    return printRunResult(io, { json: json, result: failed, runId, runDir });
  }
  const traced = traces.trace;

  const recorder = createRunRecorder({
    runId,
    log,
    tracker,
    predictEdit: editPredictor(workspace, spec.allowPaths),
    journal,
    ...(model.turns === undefined ? {} : { turns: model.turns }),
    ...(resume === undefined ? {} : { logged: resume.plan.logged }),
  });
  const allowance = createPathAllowance(spec.allowPaths);
  const gate = createFinishGate({
    startVersion: tracker.start.version,
    inspect: () => tracker.inspect(),
    versionAfter: async (callId) => tracker.versionAfter(callId) ?? tracker.current,
    isAllowed: (file) => allowance(file),
    enforce: gateMode(spec, tools.testCommand) === "tests",
  });
  if (resume !== undefined) gate.restoreTests(resume.plan.tests);
  const features = await prepareRunFeatures({
    spec,
    redact: redact,
    artifactsDir: path.join(runDir, "artifacts"),
    // Set by the recorder's afterToolCall, which runs before the loop detection's.
    version: () => tracker.current,
    ...(model.system === undefined ? {} : { system: model.system }),
  });
  const hooks = hookExtensions({
    entries: settings.hooks,
    runId,
    workspace,
    redact: redact,
    env: { ...env },
    warn: (line) => io.stderr(line),
    log,
  });
  // A fallback model needs the retry machinery even without retries: it decides when to ask it.
  const retry =
    spec.retries === 0 && model.fallback === undefined
      ? undefined
      : {
          policy: retryPolicy(spec.retries),
          ...(model.fallback === undefined
            ? {}
            : { fallback: { ...model.fallback, price: price.fallbackPrice ?? null } }),
        };
  // The loop detection counts repeats by observation (`--max-repeated-actions`), not the guard.
  const { maxRepeatedActions: _counted, ...limits } = spec.limits;
  // Subagents (lesson 39): last among the extensions, so a spawn_agent call it sees is
  // one that nothing before it answered or vetoed.
  const subagents =
    (spec.subagents ?? 0) === 0
      ? undefined
      : createSubagents({
          limit: spec.subagents ?? 1,
          limits,
          ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }),
          parentAllows: allowance,
          signal,
          notify: (line) => io.stderr(redact(line)),
          // A resumed run counts what its children spent before, and numbers new ones after them.
          ...(resume === undefined
            ? {}
            : { spentBefore: resume.plan.subagents, firstIndex: await lastChildIndex(runDir) }),
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
            workspace,
            runId,
            runDir,
            provider: model.child,
            redact: redact,
            price: price.price,
            ...(retry === undefined ? {} : { retry }),
            ...(tools.testCommand === undefined ? {} : { testCommand: tools.testCommand }),
            enforceTests: gateMode(spec, tools.testCommand) === "tests",
            ...(io.approver === undefined ? {} : { approver: io.approver }),
            hooks: settings.hooks,
            parentAllows: allowance,
            env: { ...env },
            warn: (line) => io.stderr(line),
          }),
        });
  // One order for a parent and a child run (see orderRunExtensions).
  const extensions = orderRunExtensions({
    ...(resume === undefined
      ? {}
      : { resume: createResumeExtension(resume.plan, workspace, { journal }) }),
    gate,
    hooks,
    recorder,
    features: features.extensions,
    ...(subagents === undefined ? {} : { subagents: subagents.extension }),
  });

  io.stderr(`coding-agent：开始运行（${model.label}，Ctrl-C 取消）\n`);
  const runTools = { ...tools.tools, ...features.tools, ...servers?.tools, ...subagents?.tools };
  const registry = servers === undefined ? runTools : servers.registry(runTools);
  const result = await runAgent(spec.goal, model.provider, registry, limits, signal, {
    redact: redact,
    maxObservationChars: spec.maxObservationChars,
    maxFinishRejections: spec.maxFinishRejections,
    extensions,
    price: price.price,
    ...(pricing === undefined ? {} : { costOf: pricing.costOf }),
    ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }),
    requiredTrace: traced.requiredTrace,
    ...(traced.trace === undefined ? {} : { trace: traced.trace }),
    ...(retry === undefined ? {} : { retry }),
  });
  // Every child, its processes and its copy, and every server process end with the run.
  await subagents?.close();
  await servers?.close();
  await traced.end();
  if (result.code === "trace_failed") io.stderr(traceFailedMessage(traced.file, result.reason));
  const logged = await recorder.finished(result);
  await log.close().catch(() => {});
  // A finished run is never resumed: no edit of it is left to settle.
  if (logged) await journal.clear().catch(() => undefined);
  if (!logged) io.stderr(`警告：${recorder.failure ?? "状态日志写入失败"}\n`);
  const changed = tools.edits.diff().files;
  if (changed.length > 0) {
    const lines = changed.map((file) => `  ${file.path} +${file.added} -${file.removed}`);
    io.stderr(`coding-agent：本次运行修改了 ${changed.length} 个文件\n${lines.join("\n")}\n`);
  }
  // On a terminal the person who started the run gets its id (piped output stays as it was:
  // `--json` carries `runId`, and a script's captured output does not change from run to run).
  if (io.stderrIsTerminal === true)
    io.stderr(`coding-agent：运行 ID ${runId}（coding-agent trace ${runId} 查看报告）\n`);
  // The run's usage and cost are its own model calls' and every child's (docs/contracts.md §7 "Cost").
  const whole = subagents === undefined ? result : withChildSpend(result, subagents.spent());
  const evidence = await gate.evidence();
  return printRunResult(io, { json: json, result: whole, evidence, runId, runDir });
}

/**
 * The `--mcp-config` file, relative to the workspace, when it is inside it: it names
 * servers the next run starts, so the agent's tools must not write it.
 */
async function mcpConfigInside(spec: RunSpec): Promise<string[]> {
  if (spec.mcpConfig === undefined) return [];
  const [root, file] = await Promise.all([
    realpath(spec.workspace).catch(() => undefined),
    realpath(spec.mcpConfig).catch(() => undefined),
  ]);
  if (root === undefined || file === undefined) return [];
  const relative = path.relative(root, file);
  return relative.startsWith("..") || path.isAbsolute(relative)
    ? []
    : [relative.split(path.sep).join("/")];
}

/** The highest number of a child folder under `<runDir>/subagents/` (0 when there is none). */
async function lastChildIndex(runDir: string): Promise<number> {
  const names = await readdir(path.join(runDir, "subagents")).catch(() => [] as string[]);
  return names.reduce(
    (last, name) => (/^\d+$/.test(name) ? Math.max(last, Number(name)) : last),
    0,
  );
}

/**
 * The prices of the run's model and of its `--fallback-model`: those its log recorded (a
 * resume counts with the prices the run started with), else its `--pricing` file over the
 * built-in table. A cost budget for a model without a price is a usage error, found before
 * any model call.
 */
async function priceOfRun(spec: RunSpec): Promise<
  | {
      readonly ok: true;
      readonly price: ModelPrice | null;
      /** Absent without `--fallback-model`. */
      readonly fallbackPrice?: ModelPrice | null;
    }
  | { readonly ok: false; readonly message: string }
> {
  const priceOf = async (model: string, recorded: ModelPrice | null | undefined) => {
    const resolved =
      recorded !== undefined
        ? { ok: true as const, price: recorded }
        : await resolvePrice({ model, pricingPath: spec.pricingPath });
    if (resolved.ok && spec.maxCostUsd !== undefined && resolved.price === null) {
      return { ok: false as const, message: unknownPriceMessage(model) };
    }
    return resolved;
  };
  const main = await priceOf(pricedModel(spec.provider), spec.price);
  const { fallbackModel } = spec.provider;
  if (!main.ok || fallbackModel === undefined) return main;
  const fallback = await priceOf(fallbackModel, spec.fallbackPrice);
  return fallback.ok ? { ok: true, price: main.price, fallbackPrice: fallback.price } : fallback;
}

/** The run's folder and its state log (appended to, for a resume). */
async function openRunFiles(
  session: Session,
  runId: string,
  redact: Redactor,
): Promise<{ readonly runDir: string; readonly log: StateLog }> {
  const { resume } = session;
  const runDir = resume?.runDir ?? (await createRunDir(codingAgentHome(session.env), runId));
  if (resume === undefined && session.owner !== undefined) {
    const taken = await acquireRunLock(runDir);
    if (!taken.ok)
      throw new Error(taken.reason === "held" ? `已被进程 ${taken.pid} 占用` : taken.message);
    session.owner.lock = taken.lock;
  }
  const log = await openStateLog(path.join(runDir, "state.jsonl"), {
    redact,
    ...(resume === undefined ? {} : { nextSeq: resume.plan.nextSeq }),
  });
  return { runDir, log };
}

async function readStartFiles(
  runDir: string,
  version: string,
): Promise<WorkspaceState | undefined> {
  try {
    const text = await readFile(path.join(runDir, START_FILES), "utf8");
    const files = new Map(Object.entries(JSON.parse(text) as Record<string, string>));
    return { version, files };
  } catch {
    return undefined;
  }
}

/**
 * `auto` is `tests` when the run has a test command (docs/contracts.md §7), except for the built-in
 * demo in a workspace whose only test command is its package.json script (see
 * `demoSkipsFinishGate`).
 */
function gateMode(spec: RunSpec, testCommand: string | undefined): "tests" | "none" {
  if (spec.finishGate === "auto")
    return testCommand === undefined || demoSkipsFinishGate(spec) ? "none" : "tests";
  return spec.finishGate;
}

/** The script path as an absolute path: a resume may start from another folder. */
function scriptPathOf(spec: RunSpec) {
  return spec.scriptPath === undefined ? {} : { scriptPath: path.resolve(spec.scriptPath) };
}

/** A run that could not keep its records: it did nothing. */
function stateFailed(
  reason: string,
  code: "state_failed" | "trace_failed" = "state_failed",
): RunResult {
  return {
    status: "failed",
    code,
    reason,
    summary: reason,
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: null,
    messages: [],
  };
}

/** A run whose trace could not be written before it started: it did nothing. */
function traceFailed(reason: string): RunResult {
  return stateFailed(reason, "trace_failed");
}

/** The stderr line of a run stopped for its trace (exit 1). */
function traceFailedMessage(file: string, reason: string): string {
  return `错误：轨迹文件 ${file} 写入失败，运行已停止（failed，trace_failed）：${reason}\n`;
}

/** Backoff of the CLI's model retries: 0.5 s doubling up to 8 s, with jitter. */
function retryPolicy(retries: number): RetryPolicy {
  return { maxAttempts: retries + 1, baseDelayMs: 500, maxDelayMs: 8_000 };
}

/** The model a run talks to, how to describe it, and what to mask. */
type ModelChoice =
  | {
      readonly ok: true;
      readonly provider: Provider;
      readonly label: string;
      readonly redact: Redactor;
      /** Script turns the fake model has used (each call takes one, a failed one too). */
      readonly turns?: () => number;
      /** A real model's system prompt for a request. */
      readonly system?: (request: ModelRequest) => Promise<string>;
      /** `--fallback-model`: the same backend with the other model. */
      readonly fallback?: { readonly provider: Provider; readonly model: string };
      /** The model of a subagent with this goal (lesson 39): never the parent's replayed replies. */
      readonly child: (goal: string) => Provider;
    }
  | { readonly ok: false; readonly message: string };

/**
 * The fake model (its script) or a real backend, from the command and the environment.
 * A resumed run gets its recorded replies first; the fake model then goes on from the
 * first turn of its script the log has not used.
 */
async function chooseModel(
  spec: RunSpec,
  env: CliEnv,
  plan: ResumePlan | undefined,
  io: CliIo,
  pricing?: RecordedPricing,
): Promise<ModelChoice> {
  const { name } = spec.provider;
  let choice: ModelChoice;
  if (name === "fake") {
    let turns: ScriptedTurn[] = defaultScript(spec.goal);
    if (spec.scriptPath !== undefined) {
      const loaded = await loadScriptFile(spec.scriptPath);
      if (!loaded.ok) return loaded;
      turns = [...loaded.turns];
    }
    const redact = createRedactor({ env });
    let used = plan?.turnsUsed ?? 0;
    const routed = routeScript(turns);
    const scripted = explainScriptEnd(createScriptedProvider(routed.parent.slice(used)));
    const provider: Provider = {
      complete(request, callSignal) {
        used += 1;
        return scripted.complete(request, callSignal);
      },
    };
    choice = {
      ok: true,
      provider,
      label: "Fake Model",
      redact,
      turns: () => used,
      child: routed.child,
    };
  } else {
    let base: string | undefined;
    if (spec.systemPromptFile !== undefined) {
      base = await readFile(spec.systemPromptFile, "utf8").catch(() => undefined);
      if (base === undefined) {
        return {
          ok: false,
          message: `--system-prompt-file 读不到文件：${spec.systemPromptFile}`,
        };
      }
    }
    let redact: Redactor = (text) => text;
    const system = createSystemPrompt({
      workspace: path.resolve(spec.workspace),
      // The run's redactor, made once the key is known: the prompt is masked like everything else.
      redact: (text) => redact(text),
      ...(base === undefined ? {} : { base }),
    });
    // On a terminal the reply (reasoning dimmed, then text) is shown as it streams in, masked
    // like everything else; `--quiet` hides it.
    const echo =
      io.stderrIsTerminal === true && spec.quiet !== true
        ? createTextEcho(
            (text) => io.stderr(text),
            (text) => redact(text),
          )
        : undefined;
    const shown = (provider: Provider) =>
      echo === undefined ? provider : endingEcho(provider, echo);
    const backend = createModelBackend({ ...spec.provider, name }, env, system, echo);
    if (!backend.ok) return backend;
    // The key is masked wherever it could show: results, reasons, observations, logs.
    redact = createRedactor({ env, secrets: [backend.apiKey] });
    const fallbackModel = spec.provider.fallbackModel;
    let fallback: { readonly provider: Provider; readonly model: string } | undefined;
    if (fallbackModel !== undefined) {
      const other = { ...spec.provider, name, model: fallbackModel };
      const second = createModelBackend(other, env, system, echo);
      if (!second.ok) return second;
      fallback = { provider: shown(second.provider), model: fallbackModel };
    }
    choice = {
      ok: true,
      provider: shown(backend.provider),
      label: `${name} · ${spec.provider.model ?? ""}${fallbackModel === undefined ? "" : `（备用 ${fallbackModel}）`} · ${backend.endpoint}`,
      redact,
      system,
      ...(fallback === undefined ? {} : { fallback }),
      child: () => backend.provider,
    };
  }
  if (plan === undefined) return choice;
  return { ...choice, provider: replayingProvider(plan, choice.provider, pricing) };
}

/** `redact` that also masks `values` (long enough to be secrets), wherever they appear. */
function withSecrets(redact: Redactor, values: readonly string[]): Redactor {
  if (values.length === 0) return redact;
  const literals = createRedactor({ env: {}, secrets: values, patterns: [] });
  return (text) => redact(literals(text));
}
