/**
 * Setup file of every lab test run: `$CODING_AGENT_HOME` points at a fresh temporary folder for
 * each test file, removed after it. A lab test that runs the capstone (`coding-agent run`,
 * `eval`, a resume) without naming a home of its own keeps its run records there, never in the
 * learner's `~/.coding-agent`, where `coding-agent runs` would list runs the learner never made.
 */
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

const home = mkdtempSync(path.join(tmpdir(), "lab-coding-agent-home-"));
process.env.CODING_AGENT_HOME = home;
afterAll(() => rm(home, { recursive: true, force: true }));
