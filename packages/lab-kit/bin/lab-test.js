#!/usr/bin/env node
// `lab-test`: the `test` script of every lab starter and solution. It runs vitest through
// its Node API with the one lab config (`defineLabConfig` on the current folder), so a lab
// carries no vitest.config.ts of its own. Arguments are vitest's own (`--watch`, a file
// filter, `-t name`); the output is vitest's default reporter, exactly as `vitest run` prints.
// Plain JavaScript on purpose: on a Node too old for this repository it says so first.
import "../src/require-node.js";
import { runLabTests } from "../src/lab-test.js";

process.exitCode = await runLabTests(process.cwd(), process.argv.slice(2));
