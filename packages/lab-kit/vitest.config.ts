import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Fixture labs carry their own tests, run only through the runner under test.
    exclude: ["tests/fixtures/**", "**/node_modules/**"],
    testTimeout: 10_000,
  },
});
