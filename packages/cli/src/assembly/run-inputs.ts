import { realpath } from "node:fs/promises";
import path from "node:path";
import type { ArtifactStore, ModelPrice, Redactor } from "@coding-agent/agent-core";
import type { CliIo } from "../cli-io.ts";
import { loadHookSettings } from "../hooks/index.ts";
import type { HookSettings } from "../hooks/settings.ts";
import type { McpServerConfig } from "../mcp/config.ts";
import { type McpRecord, mcpSecretValues, resolveMcpServers } from "../mcp/index.ts";
import type { CliEnv } from "../model-provider.ts";
import { codingAgentHome } from "../run-files.ts";
import type { RunSpec } from "../run-spec.ts";
import { prepareRunTools, type RunToolsResult } from "../run-tools.ts";
import { BUILT_IN_DEMO_GATE_NOTE, demoSkipsFinishGate } from "../script-file.ts";
import { type RecordedPricing, recordedPricing } from "../state/recorded-price.ts";
import type { ResumePlan } from "../state/resume.ts";
import { chooseModel, type ModelChoice } from "./model-choice.ts";
import { createRunArtifacts, runToolsOptions } from "./run-assembly.ts";
import { priceOfRun } from "./run-price.ts";
import { createRunRedactor } from "./run-redactor.ts";

/** What a `run` or `resume` reads and checks before it writes anything. */
export interface RunInputs {
  readonly redact: Redactor;
  readonly model: Extract<ModelChoice, { ok: true }>;
  readonly price: { readonly price: ModelPrice | null; readonly fallbackPrice?: ModelPrice | null };
  /** A resume's prices of its recorded replies. */
  readonly pricing?: RecordedPricing;
  readonly settings: Extract<HookSettings, { ok: true }>;
  readonly mcpServers: readonly McpServerConfig[];
  readonly tools: Extract<RunToolsResult, { ok: true }>;
  /** The run's one artifact store: the tools keep output in it, `assembleRun` reads from it. */
  readonly artifacts: ArtifactStore;
}

/**
 * The hooks and MCP servers the run may use, its one redactor (made before anything that
 * masks), its model, prices, artifact store and tools, with their warnings printed: or the
 * Chinese message of the first usage error (exit 2).
 */
export async function prepareRunInputs(
  spec: RunSpec,
  context: {
    readonly io: CliIo;
    readonly env: CliEnv;
    readonly plan?: ResumePlan;
    /** The run's `artifacts/` folder (made on the first output kept there). */
    readonly artifactsDir: string;
  },
): Promise<
  | { readonly ok: true; readonly inputs: RunInputs }
  | { readonly ok: false; readonly message: string }
> {
  const { io, env, plan } = context;
  // Hooks of the user, and of the workspace only when it is trusted (docs/contracts.md §7, lesson 36).
  // Loaded before the tools: the scripts they run are files the tools must not write.
  const realWorkspace = await realpath(spec.workspace).catch(() => undefined);
  const settings = await loadHookSettings({
    workspace: realWorkspace ?? path.resolve(spec.workspace),
    home: codingAgentHome(env),
    // A missing workspace is reported by the tools below; nothing is recorded as trusted.
    trustWorkspace: spec.trustWorkspace === true && realWorkspace !== undefined,
  });
  if (!settings.ok) return settings;
  // MCP servers (lesson 37) are resolved before the redactor is made: what they are given
  // under secret-looking names is masked in everything the run writes. A bad definition
  // is reported below, where it always was.
  const mcp = await resolveMcpServers({
    settingsServers: settings.mcpServers,
    configFile: spec.mcpConfig,
    env,
  });
  const redact = createRunRedactor(spec, env, mcp.ok ? mcpSecretValues(mcp.servers) : []);
  // A resume's recorded replies: one the fallback model gave costs the fallback's price.
  const pricing = plan === undefined ? undefined : recordedPricing(spec.fallbackPrice);
  const model = await chooseModel(spec, {
    env,
    io,
    redact,
    ...(plan === undefined ? {} : { plan }),
    ...(pricing === undefined ? {} : { pricing }),
  });
  if (!model.ok) return model;
  const price = await priceOfRun(spec);
  if (!price.ok) return price;
  // Made here, before the tools, once: the features get this same store (`assembleRun`).
  const artifacts = createRunArtifacts(context.artifactsDir);
  const tools = await prepareRunTools(
    runToolsOptions(spec, plan === undefined ? "fresh" : "resume", {
      workspace: spec.workspace,
      ...(io.approver === undefined ? {} : { approver: io.approver }),
      protectedFiles: [...settings.scripts, ...(await mcpConfigInside(spec))],
      redact,
      artifacts,
    }),
  );
  if (!tools.ok) return tools;
  if (spec.finishGate === "tests" && tools.testCommand === undefined) {
    return {
      ok: false,
      message:
        "--finish-gate tests 需要测试命令：用 --test-command 指定，或在工作区 package.json 里写 test 脚本",
    };
  }
  if (tools.warning !== undefined) io.stderr(`${tools.warning}\n`);
  if (tools.testCommand !== undefined && demoSkipsFinishGate(spec))
    io.stderr(`${BUILT_IN_DEMO_GATE_NOTE}\n`);
  if (settings.warning !== undefined) io.stderr(`${settings.warning}\n`);
  if (!mcp.ok) return mcp;
  return {
    ok: true,
    inputs: {
      redact,
      model,
      price,
      ...(pricing === undefined ? {} : { pricing }),
      settings,
      mcpServers: mcp.servers,
      tools,
      artifacts,
    },
  };
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

/**
 * A new run's spec as `run_started` records it: the workspace's real path, the script's
 * absolute one (a resume may start from another folder), the prices and the MCP tools.
 */
export function startedSpec(spec: RunSpec, inputs: RunInputs, mcp: McpRecord | undefined): RunSpec {
  const { price, fallbackPrice } = inputs.price;
  return {
    ...spec,
    workspace: inputs.tools.workspaceRoot,
    ...(spec.scriptPath === undefined ? {} : { scriptPath: path.resolve(spec.scriptPath) }),
    price,
    ...(fallbackPrice === undefined ? {} : { fallbackPrice }),
    ...(mcp === undefined
      ? {}
      : { mcp: { servers: [...mcp.servers], failed: [...mcp.failed], tools: [...mcp.tools] } }),
  };
}
