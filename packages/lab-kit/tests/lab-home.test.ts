import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defineLabConfig } from "../src/run/lab-config.ts";

// The setup file as the lab config names it, loaded here as vitest loads it before a lab's tests.
const setupFiles = [defineLabConfig(path.join(tmpdir(), "lab", "starter")).test?.setupFiles]
  .flat()
  .filter((file): file is string => typeof file === "string");
const labHome = setupFiles.find((file) => path.basename(file) === "lab-home.ts");
const callersHome = process.env.CODING_AGENT_HOME;
if (labHome !== undefined) await import(labHome);

describe("the lab config's lab-home.ts setup file", () => {
  it("is one of every lab test run's setup files", () => {
    expect(labHome).toBeDefined();
  });

  it("points $CODING_AGENT_HOME at a fresh empty temporary folder, not the caller's", () => {
    const home = process.env.CODING_AGENT_HOME ?? "";
    expect(home).not.toBe(callersHome);
    expect(path.basename(home)).toMatch(/^lab-coding-agent-home-/);
    expect(path.dirname(home)).toBe(tmpdir());
    expect(existsSync(home) && readdirSync(home)).toEqual([]);
  });
});
