import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ModelRequest, Provider, Redactor } from "@coding-agent/agent-core";
import { createScriptedProvider, type ScriptedTurn } from "@coding-agent/agent-core/testing";
import type { CliIo } from "../cli-io.ts";
import { type CliEnv, createModelBackend } from "../model-provider.ts";
import type { RunSpec } from "../run-spec.ts";
import { defaultScript, explainScriptEnd, loadScriptFile, routeScript } from "../script-file.ts";
import type { RecordedPricing } from "../state/recorded-price.ts";
import { type ResumePlan, replayingProvider } from "../state/resume.ts";
import { createTextEcho, endingEcho } from "../stream-echo.ts";
import { createSystemPrompt } from "../system-prompt.ts";

/** The model a run talks to, and how to describe it. */
export type ModelChoice =
  | {
      readonly ok: true;
      readonly provider: Provider;
      readonly label: string;
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

/** What choosing a model needs besides the spec. */
export interface ModelChoiceContext {
  readonly env: CliEnv;
  readonly io: CliIo;
  /** The run's redactor: the system prompt and the streamed text are masked with it. */
  readonly redact: Redactor;
  /** A resume's plan: its recorded replies come first. */
  readonly plan?: ResumePlan;
  /** A resume's prices of recorded replies (the fallback's at its own). */
  readonly pricing?: RecordedPricing;
}

/**
 * The fake model (its script) or a real backend, from the spec and the environment.
 * A resumed run gets its recorded replies first; the fake model then goes on from the
 * first turn of its script the log has not used.
 */
export async function chooseModel(
  spec: RunSpec,
  context: ModelChoiceContext,
): Promise<ModelChoice> {
  const choice =
    spec.provider.name === "fake"
      ? await fakeModel(spec, context.plan?.turnsUsed ?? 0)
      : await realModel(spec, context);
  const { plan } = context;
  if (!choice.ok || plan === undefined) return choice;
  return { ...choice, provider: replayingProvider(plan, choice.provider, context.pricing) };
}

/** The Fake Model: `--script`'s turns (or the built-in demo's), from the first unused one. */
async function fakeModel(spec: RunSpec, turnsUsed: number): Promise<ModelChoice> {
  let turns: ScriptedTurn[] = defaultScript(spec.goal);
  if (spec.scriptPath !== undefined) {
    const loaded = await loadScriptFile(spec.scriptPath);
    if (!loaded.ok) return loaded;
    turns = [...loaded.turns];
  }
  let used = turnsUsed;
  const routed = routeScript(turns);
  const scripted = explainScriptEnd(createScriptedProvider(routed.parent.slice(used)));
  const provider: Provider = {
    complete(request, callSignal) {
      used += 1;
      return scripted.complete(request, callSignal);
    },
  };
  return { ok: true, provider, label: "Fake Model", turns: () => used, child: routed.child };
}

/** A vendor's backend, its system prompt, the streamed echo and `--fallback-model`. */
async function realModel(spec: RunSpec, context: ModelChoiceContext): Promise<ModelChoice> {
  const { io, env, redact } = context;
  const name = spec.provider.name;
  if (name === "fake") throw new TypeError("realModel needs a real backend");
  let base: string | undefined;
  if (spec.systemPromptFile !== undefined) {
    base = await readFile(spec.systemPromptFile, "utf8").catch(() => undefined);
    if (base === undefined)
      return { ok: false, message: `--system-prompt-file 读不到文件：${spec.systemPromptFile}` };
  }
  const system = createSystemPrompt({
    workspace: path.resolve(spec.workspace),
    redact,
    ...(base === undefined ? {} : { base }),
  });
  // On a terminal the reply (reasoning dimmed, then text) is shown as it streams in, masked
  // like everything else; `--quiet` hides it.
  const echo =
    io.stderrIsTerminal === true && spec.quiet !== true
      ? createTextEcho((text) => io.stderr(text), redact)
      : undefined;
  const shown = (provider: Provider) =>
    echo === undefined ? provider : endingEcho(provider, echo);
  // The system prompt goes on each request (`prepareRunFeatures`), not into the provider.
  const backend = createModelBackend({ ...spec.provider, name }, env, undefined, echo);
  if (!backend.ok) return backend;
  const fallbackModel = spec.provider.fallbackModel;
  let fallback: { readonly provider: Provider; readonly model: string } | undefined;
  if (fallbackModel !== undefined) {
    const other = { ...spec.provider, name, model: fallbackModel };
    const second = createModelBackend(other, env, undefined, echo);
    if (!second.ok) return second;
    fallback = { provider: shown(second.provider), model: fallbackModel };
  }
  const backup = fallbackModel === undefined ? "" : `（备用 ${fallbackModel}）`;
  return {
    ok: true,
    provider: shown(backend.provider),
    label: `${name} · ${spec.provider.model ?? ""}${backup} · ${backend.endpoint}`,
    system,
    ...(fallback === undefined ? {} : { fallback }),
    child: () => backend.provider,
  };
}
