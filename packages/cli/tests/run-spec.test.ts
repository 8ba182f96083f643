/**
 * The run spec (`run_started.options`): versioned, and read back through its schema by
 * `resume` and `replay`. The fixture is a log written by the runtime before the spec had a
 * version (the CLI's parse result, with `kind` and `json`), its temporary folder replaced by
 * `<base>`: such logs still resume and replay.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRecordedSpec, RUN_SPEC_VERSION } from "../src/run-spec.ts";
import { captureCli } from "./support/run-cli.ts";
import { FIXED, useSumRepoAndHome } from "./support/sum-repo.ts";

// Real files and test processes: the timeout only turns a hang into a failure.
const HANG_GUARD = { timeout: 120_000 };
const FIXTURE = join(import.meta.dirname, "fixtures", "unversioned-options");
const RUN_ID = "20261204-231658Z-0dee8c";

let base: string;
let workspace: string;
let home: string;
useSumRepoAndHome((made) => {
  ({ base, workspace, home } = made);
});

const cli = (argv: string[]) =>
  captureCli(argv, { CODING_AGENT_HOME: home, PATH: process.env.PATH });
const stateFile = () => join(home, "runs", RUN_ID, "state.jsonl");

/** The fixture's events, in this test's folders. */
async function fixtureEvents(): Promise<Record<string, unknown>[]> {
  const text = await readFile(join(FIXTURE, "state.jsonl"), "utf8");
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line.replaceAll("<base>", base)));
}

/** Puts `events` where the run's log goes, and the fixture's script where the log says it is. */
async function installLog(events: readonly unknown[]) {
  await mkdir(join(home, "runs", RUN_ID), { recursive: true });
  await writeFile(stateFile(), `${events.map((event) => JSON.stringify(event)).join("\n")}\n`);
  await writeFile(join(base, "script.json"), await readFile(join(FIXTURE, "script.json")));
}

/** The fixture cut after the edit's result: the run was killed before its tests ran. */
async function unfinished(edit: (options: Record<string, unknown>) => unknown = (o) => o) {
  const events = (await fixtureEvents()).filter((event) => (event.seq as number) <= 7);
  const [started, ...rest] = events;
  const options = edit(started?.options as Record<string, unknown>);
  await installLog([{ ...started, options }, ...rest]);
  await writeFile(join(workspace, "src", "sum.js"), FIXED);
}

describe("a log written before the run spec had a version", () => {
  it("replays to the result it recorded", HANG_GUARD, async () => {
    await installLog(await fixtureEvents());
    const replay = await cli(["replay", RUN_ID, "--json"]);
    expect(replay.stderr).not.toContain("无效");
    expect(replay.code).toBe(0);
    expect(replay.result).toMatchObject({ status: "completed", steps: 4, toolCalls: 3 });
  });

  it("resumes from where it was killed and finishes", HANG_GUARD, async () => {
    await unfinished();
    const resumed = await cli(["resume", RUN_ID, "--json"]);
    expect(resumed.stderr).not.toContain("无效");
    expect(resumed.code).toBe(0);
    expect(resumed.result).toMatchObject({ status: "completed", steps: 4 });
    const log = await readFile(stateFile(), "utf8");
    expect(log.trimEnd().split("\n").at(-1)).toContain('"run_finished"');
  });
});

describe("an edited run spec", () => {
  it(
    "refuses a resume naming the field at fault (exit 2), the log untouched",
    HANG_GUARD,
    async () => {
      await unfinished((options) => ({
        ...options,
        limits: { ...(options.limits as object), maxSteps: "many" },
      }));
      const before = await readFile(stateFile(), "utf8");
      const resumed = await cli(["resume", RUN_ID, "--json"]);
      expect(resumed.code).toBe(2);
      expect(resumed.stderr).toContain("run_started.options.limits.maxSteps");
      expect(await readFile(stateFile(), "utf8")).toBe(before);
    },
  );

  it("refuses a replay of a spec of another version (exit 2)", HANG_GUARD, async () => {
    const events = await fixtureEvents();
    const [started, ...rest] = events;
    const options = { ...(started?.options as object), version: 99 };
    await installLog([{ ...started, options }, ...rest]);
    const replay = await cli(["replay", RUN_ID, "--json"]);
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain("run_started.options.version");
  });
});

describe("parseRecordedSpec", () => {
  it("upgrades unversioned options to the current spec without the command's kind and --json", async () => {
    const [started] = await fixtureEvents();
    const parsed = parseRecordedSpec(started?.options);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.spec.version).toBe(RUN_SPEC_VERSION);
    expect(parsed.spec).not.toHaveProperty("kind");
    expect(parsed.spec).not.toHaveProperty("json");
    expect(parsed.spec.limits).toEqual({ maxSteps: 6, maxRepeatedActions: 3 });
  });

  it("refuses a current spec with a key it does not know", () => {
    const parsed = parseRecordedSpec({ version: RUN_SPEC_VERSION, goal: "x", bogus: 1 });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.message).toContain("run_started.options");
  });
});

describe("run_started.options", () => {
  it(
    "records the versioned run spec, nothing of how the result was printed",
    HANG_GUARD,
    async () => {
      await writeFile(join(base, "script.json"), await readFile(join(FIXTURE, "script.json")));
      const argv = [
        "run",
        "修复 sum",
        "--script",
        join(base, "script.json"),
        "--workspace",
        workspace,
      ];
      const ran = await cli([...argv, "--approval", "auto", "--sandbox", "none", "--json"]);
      expect(ran.code).toBe(0);
      const log = await readFile(join(home, "runs", ran.result.runId, "state.jsonl"), "utf8");
      const options = JSON.parse(log.split("\n")[0] ?? "{}").options;
      expect(options).toMatchObject({ version: RUN_SPEC_VERSION, goal: "修复 sum", workspace });
      expect(options).not.toHaveProperty("json");
      expect(options).not.toHaveProperty("kind");
      expect(parseRecordedSpec(options).ok).toBe(true);
    },
  );
});
