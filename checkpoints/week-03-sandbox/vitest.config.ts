import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Each test runs the CLI with real files and a real `node --version`.
    testTimeout: 30_000,
  },
});
