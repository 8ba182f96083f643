import {
  type ArtifactStore,
  createContextBudget,
  createLoopDetection,
  createModelRequest,
  DEFAULT_LOOP_WINDOW,
  type ModelRequest,
  type Redactor,
  type RunExtension,
  type Tool,
} from "@coding-agent/agent-core";
import { createTokenEstimator, VENDOR_PRESETS } from "@coding-agent/providers";
import { createReadArtifactTool, observationBudget } from "@coding-agent/tools";
import type { RunSpec } from "./run-spec.ts";

/** The week-5 features of one run: its extensions, in order, and the tools they add. */
export interface RunFeatures {
  readonly extensions: readonly RunExtension[];
  readonly tools: Readonly<Record<string, Tool>>;
}

/**
 * Loop detection always (`--loop-window`, `--max-repeated-actions`), and `read_artifact` over
 * the run's one artifact store (the one `run_command` and `run_tests` keep outputs in); with
 * `--max-context-tokens`, the context budget that stores there too (without it, only those
 * tools store anything, and `read_artifact` is offered once one has). The loop detection
 * comes first: it compares what the tools returned, before the context budget replaces a
 * large result by its preview.
 */
export async function prepareRunFeatures(options: {
  readonly spec: RunSpec;
  readonly redact: Redactor;
  /** The run's one artifact store, the tools' too (`createRunArtifacts`). */
  readonly artifacts: ArtifactStore;
  /** The workspace version after the latest tool call (the workspace tracker's). */
  readonly version?: () => string | undefined;
  /** A real model's system prompt for a request (counted in the context budget). */
  readonly system?: (request: ModelRequest) => Promise<string>;
}): Promise<RunFeatures> {
  const { spec, redact } = options;
  const loopDetection = createLoopDetection({
    window: spec.loopWindow ?? DEFAULT_LOOP_WINDOW,
    maxRepeatedActions: spec.limits.maxRepeatedActions,
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  const { artifacts } = options;
  const budget = observationBudget(spec.maxObservationChars, redact);
  const readArtifact = { read_artifact: createReadArtifactTool(artifacts, budget) };
  // A real model's system prompt is part of the request (`ModelRequest.system`): set here,
  // before the context budget, so its estimate and the provider see the same text.
  const build = options.system;
  const systemPrompt: RunExtension[] =
    build === undefined
      ? []
      : [
          {
            name: "system-prompt",
            async beforeModelCall(request) {
              const system = await build(request);
              return { kind: "rewrite", request: createModelRequest({ ...request, system }) };
            },
          },
        ];
  if (spec.maxContextTokens === undefined) {
    // Only `run_command` and `run_tests` store anything here (an output cut to the budget):
    // the model is offered `read_artifact` once a result names an artifact.
    return {
      extensions: [loopDetection, ...systemPrompt, artifactOffer()],
      tools: readArtifact,
    };
  }
  // OpenAI-style requests get the real tokenizer; Anthropic's and the fake model's the
  // conservative estimate (UTF-8 bytes / 3) of the Anthropic wire JSON; the request's
  // system prompt is counted with it.
  const estimate = await createTokenEstimator({
    // The Fake Model has no wire; its requests are estimated as the conservative kind.
    style:
      spec.provider.name !== "fake" && VENDOR_PRESETS[spec.provider.name].wire === "openai"
        ? "openai"
        : "anthropic",
  });
  const contextBudget = createContextBudget({
    maxContextTokens: spec.maxContextTokens,
    estimate,
    artifacts,
    redact,
    maxObservationChars: spec.maxObservationChars,
  });
  return {
    extensions: [loopDetection, ...systemPrompt, contextBudget],
    tools: readArtifact,
  };
}

/**
 * Leaves `read_artifact` out of a request until a tool result in it names an artifact
 * (`"artifact":"<id>"`, what `run_command` and `run_tests` add when they keep an output):
 * a run with nothing stored is not offered a tool it cannot use. Decided from the request
 * alone, so a resume and a replay offer exactly what the run offered.
 */
function artifactOffer(): RunExtension {
  return {
    name: "artifact-offer",
    beforeModelCall(request) {
      const named = request.messages.some(
        (message) => message.role === "tool" && message.content.includes('"artifact":"'),
      );
      if (named || !request.tools.some((tool) => tool.name === "read_artifact")) return undefined;
      const tools = request.tools.filter((tool) => tool.name !== "read_artifact");
      return { kind: "rewrite", request: createModelRequest({ ...request, tools }) };
    },
  };
}

/** The pieces of a run's extensions, each placed by `orderRunExtensions`. */
export interface RunExtensionParts {
  /**
   * What is already recorded: a resumed run's answers from its log, or a replay's (a
   * child is never resumed: none).
   */
  readonly resume?: RunExtension;
  /** The finish gate (a replay has none: its log answers each finish). */
  readonly gate?: RunExtension;
  /** The command hooks (`hookExtensions`): PreToolUse/PostToolUse, and Stop. */
  readonly hooks?: {
    readonly tools: readonly RunExtension[];
    readonly stop: readonly RunExtension[];
  };
  /**
   * What records each call's workspace version: the state log's recorder (a parent), or
   * the workspace tracker alone (a child, which has no log).
   */
  readonly recorder?: RunExtension;
  /** `prepareRunFeatures`' extensions: loop detection, system prompt, context budget. */
  readonly features: readonly RunExtension[];
  /**
   * `spawn_agent`'s scheduler (a parent with `--subagents`; a child has none), or what charges a
   * replay's account with the children's recorded spend where the scheduler stood.
   */
  readonly subagents?: RunExtension;
  /** Last of all: a replay's check of each model request against the log. */
  readonly last?: RunExtension;
}

/**
 * The one order of a run's extensions, in every mode (lesson 39: a child runs the parent's
 * runtime; a replay runs it again). The recorded answers first; the finish gate sees each
 * tool's own result, before a PostToolUse hook may replace it (a hook cannot turn failing
 * tests into evidence); the tool hooks next (the log records what they let through); then
 * the recorder (the log writes, the workspace version after each call); the Stop hooks see
 * a finish the gate accepted; loop detection and the context budget see the results as the
 * log has them (the loop detection reads the version the recorder set); the subagents
 * last, so a `spawn_agent` call they see is one nothing before them answered or vetoed.
 */
export function orderRunExtensions(parts: RunExtensionParts): RunExtension[] {
  const one = (extension: RunExtension | undefined) => (extension === undefined ? [] : [extension]);
  return [
    ...one(parts.resume),
    ...one(parts.gate),
    ...(parts.hooks?.tools ?? []),
    ...one(parts.recorder),
    ...(parts.hooks?.stop ?? []),
    ...parts.features,
    ...one(parts.subagents),
    ...one(parts.last),
  ];
}
