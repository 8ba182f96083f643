import { readFile, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * Defaults of `coding-agent run` from settings files (docs/contracts.md §8 "Settings"): the
 * `run` object of `$CODING_AGENT_HOME/settings.json` and, when the workspace is trusted, of
 * `<workspace>/.coding-agent/settings.json`. Its keys are the flags' own names without the
 * dashes (`"max-steps": 40`, `"allow-command": ["npm"]`), so a setting reads like the flag and
 * is validated by the same schema; a flag on the command line overrides both files, and the
 * workspace's file overrides the user's.
 *
 * A workspace's file may not choose the backend, where the key is read from or sent to, or
 * whether calls need approval: a cloned repository must not decide where your key goes.
 */

/** The flags a settings file may set, with the JSON type each takes. */
export const SETTABLE_FLAGS = {
  provider: "string",
  model: "string",
  "base-url": "string",
  "api-key-env": "string",
  "fallback-model": "string",
  "reasoning-effort": "string",
  approval: "string",
  sandbox: "string",
  "allow-command": "strings",
  "allow-tool": "strings",
  "test-command": "string",
  "finish-gate": "string",
  quiet: "boolean",
  "max-steps": "number",
  "max-tool-calls": "number",
  "max-tokens": "number",
  "max-duration-ms": "number",
  "model-timeout-ms": "number",
  "tool-timeout-ms": "number",
  "max-retries": "number",
  "max-cost-usd": "number",
  "max-context-tokens": "number",
  "max-observation-chars": "number",
  "max-tool-errors": "number",
  "max-finish-rejections": "number",
} as const;

export type SettableFlag = keyof typeof SETTABLE_FLAGS;

/** What only the user's own file may set. */
export const USER_ONLY_FLAGS = ["provider", "base-url", "api-key-env", "approval"] as const;

/** A flag's value as `util.parseArgs` gives it: numbers stay text, as on a command line. */
export type FlagValue = string | boolean | readonly string[];

/** Defaults to put under the command line's flags, and the file (and key) each came from. */
export interface RunDefaults {
  readonly values: Readonly<Partial<Record<SettableFlag, FlagValue>>>;
  /** Per flag: `<file> run.<flag>`. */
  readonly origins: Readonly<Partial<Record<SettableFlag, string>>>;
}

export const NO_RUN_DEFAULTS: RunDefaults = { values: {}, origins: {} };

export type RunDefaultsResult =
  | { readonly ok: true; readonly defaults: RunDefaults }
  | { readonly ok: false; readonly message: string };

/**
 * The `run` object of one parsed settings document as flag values. `source` says whose file
 * it is; a workspace's may not set {@link USER_ONLY_FLAGS}. Unknown keys and wrong types are
 * errors naming the file and the key (a typo must not silently fall back to a default).
 */
export function runDefaultsOf(
  document: unknown,
  file: string,
  source: "user" | "workspace",
): RunDefaultsResult {
  const run = isRecord(document) ? document.run : undefined;
  if (run === undefined) return { ok: true, defaults: NO_RUN_DEFAULTS };
  const bad = (key: string, why: string) => ({
    ok: false as const,
    message: `设置文件 ${file} 的 run${key === "" ? "" : `.${key}`} 无效：${why}`,
  });
  if (!isRecord(run))
    return bad("", '需要一个对象，键是 run 的选项名（不带 --），如 { "max-steps": 40 }');
  const values: Partial<Record<SettableFlag, FlagValue>> = {};
  const origins: Partial<Record<SettableFlag, string>> = {};
  for (const [key, value] of Object.entries(run)) {
    if (!isSettable(key)) {
      return bad(
        key,
        `不是可以在设置文件里给默认值的选项（可以设置：${Object.keys(SETTABLE_FLAGS).join("、")}）`,
      );
    }
    if (source === "workspace" && (USER_ONLY_FLAGS as readonly string[]).includes(key)) {
      return bad(
        key,
        `工作区的设置文件不能设置 ${USER_ONLY_FLAGS.join("、")}（克隆来的仓库不能决定用哪个后端、密钥发往哪里、调用要不要批准）；把它写进 $CODING_AGENT_HOME/settings.json 或命令行`,
      );
    }
    const flag = flagValueOf(SETTABLE_FLAGS[key], value);
    if (flag === undefined) return bad(key, expected(SETTABLE_FLAGS[key]));
    values[key] = flag;
    origins[key] = `${file} run.${key}`;
  }
  return { ok: true, defaults: { values, origins } };
}

/** `upper` over `lower`, flag by flag (a list replaces a list: settings are defaults, not additions). */
export function layerDefaults(lower: RunDefaults, upper: RunDefaults): RunDefaults {
  return {
    values: { ...lower.values, ...upper.values },
    origins: { ...lower.origins, ...upper.origins },
  };
}

/**
 * The user's defaults: `settings.json` in `home`, if it exists. The workspace's file is read
 * with its hooks (it needs the workspace's trust) and layered on by the caller.
 */
export async function readUserRunDefaults(home: string): Promise<RunDefaultsResult> {
  const file = path.join(home, "settings.json");
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" || error.code === "ENOTDIR" ? undefined : error,
  );
  if (text === undefined) return { ok: true, defaults: NO_RUN_DEFAULTS };
  if (text instanceof Error)
    return { ok: false, message: `设置文件 ${file} 读不了：${text.message}` };
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `设置文件 ${file} 不是有效的 JSON：${(error as Error).message}` };
  }
  const shown = await realpath(file).catch(() => file);
  return runDefaultsOf(document, shown, "user");
}

function isSettable(key: string): key is SettableFlag {
  return Object.hasOwn(SETTABLE_FLAGS, key);
}

function flagValueOf(
  kind: (typeof SETTABLE_FLAGS)[SettableFlag],
  value: unknown,
): FlagValue | undefined {
  switch (kind) {
    case "string":
      return typeof value === "string" ? value : undefined;
    case "boolean":
      return typeof value === "boolean" ? value : undefined;
    case "number":
      // As text, so the flag's own schema checks it and says what a good value is.
      return typeof value === "number" && Number.isFinite(value) ? String(value) : undefined;
    case "strings":
      return Array.isArray(value) && value.every((item) => typeof item === "string")
        ? [...value]
        : undefined;
  }
}

function expected(kind: (typeof SETTABLE_FLAGS)[SettableFlag]): string {
  switch (kind) {
    case "string":
      return "需要字符串";
    case "boolean":
      return "需要 true 或 false";
    case "number":
      return "需要数字";
    case "strings":
      return '需要字符串数组，如 ["npm"]';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The flags that choose and reach a real model: none of them means anything to the Fake Model. */
const REAL_MODEL_FLAGS: readonly SettableFlag[] = [
  "provider",
  "model",
  "base-url",
  "api-key-env",
  "fallback-model",
  "reasoning-effort",
];

/**
 * The defaults that apply to a command line: all of them, except that a run of the Fake
 * Model — `--provider fake`, or `--script` without `--provider` (a course command, a test) —
 * takes none of a real model's settings. The settings say which model to use when none is
 * named; they do not turn a scripted run into a paid one.
 */
export function applicableDefaults(
  given: Readonly<Record<string, unknown>>,
  defaults: RunDefaults,
): RunDefaults {
  const scripted = given.script !== undefined && given.provider === undefined;
  const provider = given.provider ?? defaults.values.provider ?? "fake";
  if (!scripted && provider !== "fake") return defaults;
  const values = { ...defaults.values };
  const origins = { ...defaults.origins };
  for (const flag of REAL_MODEL_FLAGS) {
    delete values[flag];
    delete origins[flag];
  }
  return { values, origins };
}
