// The hint reporter of `pnpm lesson watch`, as a module vitest loads by path, with plain,
// serializable options: `runLabTests` (run/lab-test.ts) takes extra reporters that way.
import type { Reporter, TestModule } from "vitest/node";
import { lookUpLab } from "./lab-lookup.ts";
import { colorsFor } from "./terminal.ts";
import { createHintReporter } from "./watch-hints.ts";

/** What `pnpm lesson watch` tells the reporter: the repository and the lesson id. */
export interface WatchReporterOptions {
  readonly repoRoot: string;
  readonly lessonId: string;
}

/** Prints the hint for the first failing test after every watch run (see watch-hints.ts). */
export default class WatchHintReporter implements Reporter {
  private inner: Promise<Reporter | undefined> | undefined;

  private readonly options: WatchReporterOptions;

  constructor(options: WatchReporterOptions) {
    this.options = options;
  }

  async onTestRunEnd(testModules: readonly TestModule[]): Promise<void> {
    this.inner ??= lookUpLab(this.options.repoRoot, this.options.lessonId, {
      requireInstall: false,
    }).then((found) =>
      found.ok
        ? createHintReporter({
            lab: found.lab,
            repoRoot: this.options.repoRoot,
            out: process.stdout,
            colors: colorsFor(process.stdout, process.env),
          })
        : undefined,
    );
    const reporter = await this.inner;
    // The arguments vitest passes beyond the modules do not matter to the hint reporter.
    await reporter?.onTestRunEnd?.(testModules, [], "failed");
  }
}
