/**
 * The body of the `lab-test` bin (every lab's `test` script) and of `pnpm lesson watch`:
 * vitest with the one lab config, in this process, with vitest's own output. A synchronous
 * endless loop fails inside its own test (the loop guard); the backstop ends a run that
 * makes no progress at all (a hang no guard reaches) and names the files it did not finish.
 */
import path from "node:path";
import type { Reporter, TestModule, TestSpecification } from "vitest/node";
import { parseCLI, startVitest } from "vitest/node";
import { toPosixPath } from "../posix-path.ts";
import { createBackstop } from "./backstop.ts";
import { defineLabConfig } from "./lab-config.ts";
import { NO_PROGRESS_MS } from "./settings.ts";

export interface LabTestOptions {
  /** Extra vitest reporters, as module path and options. */
  readonly reporters?: readonly (readonly [string, unknown])[];
  /** Where the backstop's notice goes; default process.stderr. */
  readonly stderr?: NodeJS.WritableStream;
  /** The backstop's limit (tests shorten it). */
  readonly noProgressMs?: number;
}

/**
 * Runs a lab package's tests as `vitest run` would with the lab config, or in watch mode
 * with `--watch`. Resolves with vitest's exit code; a stalled run ends this process (exit 1),
 * since a worker blocked outside any guard cannot be stopped otherwise.
 */
export async function runLabTests(
  packageDir: string,
  args: readonly string[],
  options: LabTestOptions = {},
): Promise<number> {
  const stderr = options.stderr ?? process.stderr;
  const limit = options.noProgressMs ?? NO_PROGRESS_MS;
  const { filter, options: cli } = parseCLI([
    "vitest",
    ...args.filter((arg, index) => !(index === 0 && arg === "--")),
  ]);
  // cac sets both spellings of `--reporter`: `reporters` and its alias.
  const { reporters, reporter: _alias, ...cliOptions } = cli as typeof cli & { reporter?: unknown };
  const unfinished = new Set<string>();
  const backstop = createBackstop(() => {
    const files = [...unfinished].map((file) => toPosixPath(path.relative(packageDir, file)));
    stderr.write(
      `\n测试运行 ${Math.round(limit / 1000)} s 没有任何进展（卡在依赖里的死循环或回溯失控的正则？），已终止。没有跑完的测试文件：${files.join("、") || "（无）"}\n`,
    );
    process.exit(1);
  }, limit);
  const progress: Reporter = {
    onTestRunStart: (specifications: readonly TestSpecification[]) => {
      for (const spec of specifications) unfinished.add(spec.moduleId);
      backstop.running(true);
    },
    onTestModuleQueued: () => backstop.progress(),
    onTestModuleCollected: () => backstop.progress(),
    onTestCaseResult: () => backstop.progress(),
    onTestModuleEnd: (module: TestModule) => {
      unfinished.delete(module.moduleId);
      backstop.progress();
    },
    onTestRunEnd: () => {
      unfinished.clear();
      backstop.running(false);
    },
  };
  const vitest = await startVitest(
    "test",
    filter,
    {
      ...cliOptions,
      watch: cliOptions.watch ?? false,
      root: packageDir,
      config: false,
      reporters: [
        ...(reporters === undefined ? ["default"] : [reporters].flat()),
        ...((options.reporters ?? []) as [string, Record<string, unknown>][]),
        progress,
      ] as NonNullable<typeof cli.reporters>,
    },
    defineLabConfig(packageDir),
  );
  try {
    if (vitest.shouldKeepServer()) {
      await new Promise<void>((resolve) => vitest.onClose(() => resolve()));
    }
  } finally {
    backstop.stop();
    await vitest.close();
  }
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
