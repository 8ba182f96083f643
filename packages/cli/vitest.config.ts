import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../source-condition.js";

export default defineConfig({
  // @coding-agent/* resolve to their src/, never to a build.
  ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
  test: {
    include: ["tests/**/*.test.ts"],
    setupFiles: ["tests/support/isolate.ts"],
    // Real child processes: the timeout only turns a hang into a failure, never a slow machine.
    testTimeout: 120_000,
  },
});
