import { homedir } from "node:os";
import path from "node:path";
import {
  createContextBudget,
  createLoopDetection,
  type Redactor,
  type RunExtension,
  type Tool,
} from "@coding-agent/agent-core";
import { createTokenEstimator } from "@coding-agent/providers";
import {
  createFileArtifactStore,
  createReadArtifactTool,
  observationBudget,
} from "@coding-agent/tools";
import type { CliCommand } from "./args.ts";
import type { CliEnv } from "./model-provider.ts";

type RunCommand = Extract<CliCommand, { kind: "run" }>;

/** The week-5 features of one run: its extensions, in order, and the tools they add. */
export interface RunFeatures {
  readonly extensions: readonly RunExtension[];
  readonly tools: Readonly<Record<string, Tool>>;
  /** Whether `run_command` should hand its output back whole (the artifacts keep it). */
  readonly wholeCommandOutput: boolean;
}

/**
 * Loop detection always (`--loop-window`, `--max-repeated-actions`); with
 * `--max-context-tokens`, the context budget, its artifacts under `artifactsDir` and the
 * `read_artifact` tool. The loop detection comes first: it compares what the tools
 * returned, before the context budget replaces a large result by its preview.
 */
export async function prepareRunFeatures(options: {
  readonly command: RunCommand;
  readonly redact: Redactor;
  readonly artifactsDir: string;
}): Promise<RunFeatures> {
  const { command, redact } = options;
  const loopDetection = createLoopDetection({
    window: command.loopWindow,
    maxRepeatedActions: command.maxRepeatedActions,
    // The workspace tracker (a hash of the workspace after each tool call) plugs in here.
    version: undefined,
  });
  if (command.maxContextTokens === undefined) {
    return { extensions: [loopDetection], tools: {}, wholeCommandOutput: false };
  }
  const artifacts = createFileArtifactStore(options.artifactsDir);
  // OpenAI-style requests get the real tokenizer; Anthropic's and the fake model's the
  // conservative estimate (UTF-8 bytes / 3) of the Anthropic wire JSON.
  const estimate = await createTokenEstimator({
    style: command.provider.name === "openai" ? "openai" : "anthropic",
  });
  const contextBudget = createContextBudget({
    maxContextTokens: command.maxContextTokens,
    estimate,
    artifacts,
    redact,
    maxObservationChars: command.maxObservationChars,
  });
  const budget = observationBudget(command.maxObservationChars, redact);
  return {
    extensions: [loopDetection, contextBudget],
    tools: { read_artifact: createReadArtifactTool(artifacts, budget) },
    wholeCommandOutput: true,
  };
}

/**
 * Where a run's artifacts go until the run folder (`$CODING_AGENT_HOME/runs/<runId>/`)
 * has its own module: a fresh folder under `runs/`, made only when an artifact is written.
 */
export function provisionalArtifactsDir(env: CliEnv): string {
  const home = env.CODING_AGENT_HOME?.trim() || path.join(homedir(), ".coding-agent");
  const runId = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return path.join(home, "runs", runId, "artifacts");
}
