import { defineConfig, type ViteUserConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../../source-condition.js";

/** The one timeout of a checkpoint's tests and hooks: it only turns a hang into a failure. */
export const CHECKPOINT_TEST_TIMEOUT_MS = 120_000;

/**
 * The vitest config of a checkpoint package, `defineCheckpointConfig(import.meta.dirname)`:
 * the `*.test.ts` files under its `tests/`, `@coding-agent/*` resolved to their sources.
 * Checkpoint tests run the capstone for real (CLI runs, `node --test`, loopback servers), most
 * of them once in a `beforeAll`: tests and hooks get the same hang guard.
 */
export function defineCheckpointConfig(packageDir: string): ViteUserConfig {
  return defineConfig({
    root: packageDir,
    // @coding-agent/* resolve to their src/, never to a build.
    ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
    test: {
      include: ["tests/**/*.test.ts"],
      testTimeout: CHECKPOINT_TEST_TIMEOUT_MS,
      hookTimeout: CHECKPOINT_TEST_TIMEOUT_MS,
    },
  });
}
