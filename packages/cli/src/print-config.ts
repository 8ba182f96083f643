import type { RunDefaults } from "./run-defaults.ts";
import { RUN_FLAGS, type RunFlagValues } from "./run-flags.ts";

/** Flags that say how to print or which folder the run gets, not how it runs: left out of the listing. */
const NOT_CONFIG = new Set(["help", "print-config", "json", "run-id"]);

/** Where one flag's value came from. */
type Source =
  | { readonly source: "command-line" }
  | { readonly source: "settings"; readonly setting: string }
  | { readonly source: "default" };

/**
 * `run --print-config`: every flag of `run` with the value this command line would run
 * with and its source — the command line, a settings file's `run` entry (file and key), or
 * the built-in default. A table for people, or (`json`) `{ "<flag>": { value, source,
 * setting? } }` for scripts.
 */
export function describeConfig(
  values: RunFlagValues,
  given: Readonly<Record<string, unknown>>,
  settings: RunDefaults,
  json: boolean,
): string {
  const rows = Object.keys(RUN_FLAGS)
    .filter((name) => !NOT_CONFIG.has(name))
    .map((name) => {
      const value = values[name as keyof RunFlagValues];
      const setting = settings.origins[name as keyof RunDefaults["origins"]];
      const source: Source =
        name in given
          ? { source: "command-line" }
          : setting !== undefined
            ? { source: "settings", setting }
            : { source: "default" };
      return { name, value, ...source };
    });
  if (json) {
    const entries = rows.map(({ name, ...row }) => [name, row] as const);
    return `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`;
  }
  const shown = rows.map((row) => ({
    flag: `--${row.name}`,
    value: shownValue(row.value),
    source:
      row.source === "command-line" ? "命令行" : row.source === "settings" ? row.setting : "默认",
  }));
  const flagWidth = Math.max(...shown.map((row) => row.flag.length));
  const valueWidth = Math.min(40, Math.max(...shown.map((row) => row.value.length)));
  return `${shown
    .map((row) => `${row.flag.padEnd(flagWidth)}  ${row.value.padEnd(valueWidth)}  ${row.source}`)
    .join("\n")}\n`;
}

function shownValue(value: unknown): string {
  if (value === undefined) return "（未设置）";
  if (Array.isArray(value)) return value.length === 0 ? "（无）" : value.join(", ");
  return String(value);
}
