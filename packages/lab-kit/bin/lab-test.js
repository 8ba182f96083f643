#!/usr/bin/env node
// `lab-test`: the `test` script of every lab starter and solution. It runs vitest through
// its Node API with the one lab config (`defineLabConfig` on the current folder), so a lab
// carries no vitest.config.ts of its own. Arguments are vitest's own (`--watch`, a file
// filter, `-t name`); the output is vitest's default reporter, exactly as `vitest run` prints.
// JavaScript, so that a Node too old for this repository's TypeScript says so first.
import "../src/require-node.js";

// vitest colours its report whatever stdout is (only NO_COLOR stops it), so a run piped into a
// file, grep or less came out full of escape codes. Like every other course tool: colours on a
// terminal, plain text elsewhere, unless FORCE_COLOR asks for them. Set before vitest loads.
if (process.stdout.isTTY !== true && process.env.FORCE_COLOR === undefined) {
  process.env.NO_COLOR ??= "1";
}

const { runLabTests } = await import("../src/run/lab-test.ts");
process.exitCode = await runLabTests(process.cwd(), process.argv.slice(2));
