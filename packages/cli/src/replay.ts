import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createRedactor,
  type RunResult,
  runAgent,
  type Tool,
  type ToolSet,
} from "@coding-agent/agent-core";
import { createPathAllowance } from "@coding-agent/tools";
import { assembleRun, createRunArtifacts, runToolsOptions } from "./assembly/run-assembly.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { recordedMcpTools } from "./mcp/tools.ts";
import type { CliEnv } from "./model-provider.ts";
import { printRunResult } from "./print-result.ts";
import { replayedChildAccount } from "./replay/child-budget.ts";
import type { compareWithLog } from "./replay/divergence.ts";
import { createReplayer, type Replayer } from "./replay/replayer.ts";
import { codingAgentHome, RUN_ID_PATTERN, runDirOf } from "./run-files.ts";
import { parseRecordedSpec, type RunSpec } from "./run-spec.ts";
import { prepareRunTools } from "./run-tools.ts";
import { readStateLog, type StateEvent } from "./state/log.ts";
import { recordedPricing } from "./state/recorded-price.ts";
import { loggedChildSpend } from "./state/resume.ts";
import { SPAWN_AGENT, spawnAgentTool } from "./subagents/spawn-tool.ts";
import { withChildSpend } from "./subagents/spend.ts";

/**
 * `coding-agent replay <runId | state.jsonl>` (docs/contracts.md §7, lesson 28): runs a finished run
 * again offline on its recorded model replies and tool results, and prints the result the
 * way `run` does, exiting as the original did. No model is asked (no backend is even built,
 * so no key or network is needed) and no tool runs: each tool is replaced by one that
 * fails the replay if it is ever called, and the tools are bound to an empty temporary
 * folder, not the recorded workspace. Nothing is written under `$CODING_AGENT_HOME`: a
 * replay is not a run, and `coding-agent runs` does not list it.
 *
 * `options.compare` replaces the divergence rule (lesson 28's exercise plugs in here).
 *
 * An unfinished run (no `run_finished`: it crashed, or is still going) is not replayed
 * (exit 2): there is no end to compare with; `coding-agent resume` finishes it first.
 */
export async function replayRun(
  target: string,
  json: boolean,
  io: CliIo,
  signal: AbortSignal,
  env: CliEnv,
  options: { readonly compare?: typeof compareWithLog } = {},
): Promise<number> {
  const file = stateFileOf(target, env);
  const read = await readStateLog(file);
  if (!read.ok) {
    io.stderr(`无法重放：${read.message}\n`);
    return EXIT_CODES.usage;
  }
  if (read.warning !== undefined) io.stderr(`警告：${read.warning}\n`);
  const { events } = read;
  const started = events[0];
  const last = events.at(-1);
  if (started?.type !== "run_started") return EXIT_CODES.usage;
  const finishedAt = events.findIndex((event) => event.type === "run_finished");
  if (finishedAt === -1) {
    io.stderr(
      `无法重放运行 ${started.runId}：它没有结束（状态日志里没有 run_finished），没有可以对照的结果。先用 coding-agent resume ${started.runId} 让它结束，再重放\n`,
    );
    return EXIT_CODES.usage;
  }
  if (last?.type !== "run_finished") {
    io.stderr(`无法重放：${file} 在 run_finished 之后还有记录（seq ${last?.seq}），日志被改过\n`);
    return EXIT_CODES.usage;
  }
  const recorded = parseRecordedSpec(started.options);
  if (!recorded.ok) {
    io.stderr(`无法重放：${file} 的 ${recorded.message}\n`);
    return EXIT_CODES.usage;
  }
  const { spec } = recorded;
  const scratch = await mkdtemp(path.join(tmpdir(), "coding-agent-replay-"));
  try {
    return await replay({ io, env, file, spec, json, events, scratch, signal, ...options });
  } catch (error) {
    // A spec the schema accepts but that makes no run (a log edited by hand): bad input, not a crash.
    io.stderr(`无法重放：${file} 的 run_started.options 无效（${(error as Error).message}）\n`);
    return EXIT_CODES.usage;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function replay(options: {
  readonly io: CliIo;
  readonly env: CliEnv;
  readonly file: string;
  readonly spec: RunSpec;
  readonly json: boolean;
  readonly events: readonly StateEvent[];
  readonly scratch: string;
  readonly signal: AbortSignal;
  readonly compare?: typeof compareWithLog;
}): Promise<number> {
  const { io, env, file, spec, json, events, scratch, signal, compare } = options;
  const started = events[0] as Extract<StateEvent, { type: "run_started" }>;
  // Each recorded reply at the price of the model that gave it (the fallback's, recorded).
  const pricing = recordedPricing(spec.fallbackPrice);
  const replayer = createReplayer(events, {
    pricing,
    ...(compare === undefined ? {} : { compare }),
  });
  const redact = createRedactor({ env });
  // The tools never run; bound to an empty folder, a bug that ran one could not touch
  // the recorded workspace either.
  const tools = await prepareRunTools(
    runToolsOptions(spec, "replay", { workspace: scratch, redact }),
  );
  if (!tools.ok) {
    io.stderr(`无法重放：${tools.message}\n`);
    return EXIT_CODES.usage;
  }
  const executed: string[] = [];
  const answer = (name: string) => standIn(name, executed, replayer);
  // MCP tools (lesson 37) from the log's record of what the servers listed: no server starts.
  const mcp = recordedMcpTools(spec.mcp, answer);
  const subagents = (spec.subagents ?? 0) > 0;
  // The children's logged spend, charged to the replay's account where the run charged it.
  const children = subagents ? replayedChildAccount(events, replayer.next) : undefined;
  const run = await assembleRun({
    spec,
    mode: "replay",
    redact,
    provider: replayer.provider,
    tools: tools.tools,
    moreTools: {
      // spawn_agent (lesson 39) as the run offered it: its calls are answered from the log.
      ...(subagents
        ? {
            [SPAWN_AGENT]: spawnAgentTool(createPathAllowance(spec.allowPaths), () => {
              throw new Error("spawn_agent 在重放里不运行");
            }),
          }
        : {}),
      ...mcp.tools,
    },
    registry: (all) => mcp.registry(all),
    standIns: (all) => neverRun(all, answer),
    artifacts: createRunArtifacts(path.join(scratch, ".artifacts")),
    version: replayer.version,
    extensions: {
      resume: replayer.answers,
      ...(children === undefined ? {} : { subagents: children.extension }),
      last: replayer.modelCheck,
    },
    price: spec.price ?? null,
    costOf: pricing.costOf,
    ...(children === undefined ? {} : { account: children.account }),
  });
  io.stderr(`coding-agent：重放运行 ${started.runId}（${events.length} 条记录，离线）\n`);
  const outcome = await runAgent(
    spec.goal,
    run.provider,
    run.tools,
    run.limits,
    signal,
    run.options,
  );
  const result = executed.length === 0 ? replayer.settle(outcome) : ranATool(outcome, executed);
  const runDir = path.dirname(file);
  // No child runs: what the run's children spent is read from the log, so the replay's usage
  // and cost are the run's whole ones, as the run reported them.
  const whole = !subagents ? result : withChildSpend(result, loggedChildSpend(events));
  return printRunResult(io, { json: json, result: whole, runId: started.runId, runDir });
}

/** A run id names `$CODING_AGENT_HOME/runs/<id>/state.jsonl`; anything else is a path. */
function stateFileOf(target: string, env: CliEnv): string {
  if (RUN_ID_PATTERN.test(target) && !target.endsWith(".jsonl")) {
    return path.join(runDirOf(codingAgentHome(env), target), "state.jsonl");
  }
  return path.resolve(target);
}

/**
 * The tools with their names, schemas and descriptions (the loop validates inputs as it
 * did), but an `execute` that records the call and fails, and no permission check: in a
 * replay every call is answered from the log before either could be asked.
 */
function neverRun(tools: ToolSet, answer: (name: string) => Tool["execute"]): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]): [string, Tool] => {
      const { authorize: _authorize, ...rest } = tool;
      return [name, { ...rest, execute: answer(name) }];
    }),
  );
}

/** A stand-in's `execute`: records the call and fails. */
function standIn(name: string, executed: string[], replayer: Replayer): Tool["execute"] {
  return () => {
    // The one call a stand-in answers: one that threw in the recorded run.
    const recorded = replayer.recordedThrow();
    if (recorded !== undefined) throw new Error(recorded);
    executed.push(name);
    throw new Error(`重放不执行工具（${name}）`);
  };
}

function ranATool(result: RunResult, executed: readonly string[]): RunResult {
  const reason = `重放时运行时要真的执行工具 ${executed.join("、")}：记录里没有它的结果`;
  return { ...result, status: "failed", code: "replay_diverged", reason, summary: reason };
}
