import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Real processes and a real filesystem: the timeout only turns a hang into a failure.
    testTimeout: 20_000,
    // After every test: no process started by it may still be running.
    setupFiles: ["tests/support/no-leftover-processes.ts"],
  },
});
