import type { Approver } from "@coding-agent/tools";
import { runCli, runCliCaptured } from "../../src/cli.ts";
import { runArgv, writeScript } from "./scripted-run.ts";

/** A scripted model turn calling `tool`, and the turn that finishes. */
export const call = (tool: string, input: unknown) => ({
  action: { type: "tool_call", tool, input },
});
export const finish = { action: { type: "finish", summary: "看完了" } };

/**
 * Runs `coding-agent run <goal> --script <turns> --workspace <workspace> --json <flags>`
 * in-process, the script written to `scriptDir`. Returns the exit code, both streams and
 * the parsed `--json` result.
 */
export async function runScripted(options: {
  readonly turns: unknown[];
  readonly flags: string[];
  readonly workspace: string;
  readonly scriptDir: string;
  readonly approver?: Approver;
  readonly goal?: string;
}) {
  const script = await writeScript(options.scriptDir, options.turns);
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    runArgv(options.goal ?? "看看仓库", script, options.workspace, ...options.flags),
    {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      ...(options.approver === undefined ? {} : { approver: options.approver }),
    },
    new AbortController().signal,
  );
  const stdout = out.join("");
  return {
    code,
    stdout,
    stderr: err.join(""),
    result: stdout === "" ? undefined : JSON.parse(stdout),
  };
}

export interface ToolOutcome {
  readonly tool: unknown;
  readonly ok: boolean;
  readonly value?: Record<string, unknown>;
  readonly error?: { readonly code: string; readonly message: string };
}

/** The tool messages of a run, in call order, each as `{ tool, ok, value | error }`. */
export function toolResults(result: { messages: Array<Record<string, unknown>> }): ToolOutcome[] {
  return result.messages
    .filter((message) => message.role === "tool")
    .map((message) =>
      message.ok
        ? { tool: message.tool, ok: true, value: JSON.parse(String(message.content)) }
        : { tool: message.tool, ok: false, error: message.error as ToolOutcome["error"] },
    );
}

/** Runs the CLI in-process with `env` (the process environment when left out); both streams captured. */
export async function captureCli(
  argv: readonly string[],
  env?: Record<string, string | undefined>,
) {
  const { exitCode, stdout, stderr } = await runCliCaptured(argv, env ?? process.env);
  return {
    code: exitCode,
    stdout,
    stderr,
    result: stdout.startsWith("{") ? JSON.parse(stdout) : undefined,
  };
}

/** `coding-agent run <goal> --provider openai --model m --base-url <url> --json`, then `more`. */
export const openaiRun = (goal: string, baseUrl: string, ...more: string[]) => [
  "run",
  goal,
  "--provider",
  "openai",
  "--model",
  "m",
  "--base-url",
  baseUrl,
  "--json",
  ...more,
];
