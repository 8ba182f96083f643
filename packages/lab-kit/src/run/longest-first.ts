import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { toPosixPath } from "../posix-path.ts";

/**
 * The order files start in: longest first, by the duration vitest recorded for each file of
 * each project last time (a file not yet run counts as longest). vitest's own order keeps
 * projects in name order, so a gate that runs into its timeout or a capstone file (the
 * longest of a verify) would start last and leave the run waiting on it alone; the projects
 * of a run are independent of one another, so any order gives the same reports.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const duration = (spec: TestSpecification): number => {
      const file = toPosixPath(path.relative(this.ctx.config.root, spec.moduleId));
      const recorded = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      return recorded?.duration ?? Number.POSITIVE_INFINITY;
    };
    return [...files].sort((a, b) => duration(b) - duration(a));
  }
}
