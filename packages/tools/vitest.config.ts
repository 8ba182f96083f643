import { defineConfig } from "vitest/config";
import { SOURCE_SSR_CONDITIONS } from "../../source-condition.js";

export default defineConfig({
  // @coding-agent/* resolve to their src/, never to a build.
  ssr: { resolve: { conditions: [...SOURCE_SSR_CONDITIONS] } },
  test: {
    include: ["tests/**/*.test.ts"],
    // Real processes and a real filesystem: the timeout only turns a hang into a failure.
    testTimeout: 20_000,
    // After every test: no process started by it may still be running.
    setupFiles: ["tests/support/no-leftover-processes.ts"],
  },
});
