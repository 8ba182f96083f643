/**
 * Which runner a test command starts, and how to make it print a report `run_tests`
 * can read: a reporter flag added where the command chose none, or the script a
 * package manager runs (`npm test`, `pnpm run x`) read for the runner it starts.
 * Pure: a command (and the package's scripts) in, a plan out.
 */

/**
 * Which report the counts come from: node's TAP, the vitest/jest JSON report, any
 * other TAP producer's, mocha's own summary, pytest's `-rA` summary, `python -m
 * unittest`'s summary, `go test -json`, libtest's summary under `cargo test`;
 * `exit_code`: none that can be read, only the command's exit status.
 */
export type TestReportKind =
  | "node_tap"
  | "jest_json"
  | "tap"
  | "mocha_summary"
  | "pytest_summary"
  | "unittest_summary"
  | "go_test_json"
  | "libtest_summary"
  | "exit_code";

/** What to run and which report to read from its output. */
export interface TestCommandPlan {
  readonly command: string;
  readonly report: TestReportKind;
  /** The runner recognised, when one was (also when its report cannot be read). */
  readonly runner?: string;
}

/** Runners whose report needs a flag, with the flag and the report it gives. */
interface FlaggedRunner {
  readonly runner: string;
  /** Matches the runner's name in the command (what the flag goes after). */
  readonly word: string;
  readonly flag: string;
  readonly report: TestReportKind;
  /** The command already chose this report; it is read as it is. */
  readonly chosen: RegExp;
  /** The command chose another reporter: nothing we can read. */
  readonly other: RegExp;
}

const FLAGGED: readonly FlaggedRunner[] = [
  {
    runner: "vitest",
    word: "vitest(?:\\s+run)?",
    flag: "--reporter=json",
    report: "jest_json",
    chosen: /--reporter[= ]json\b/,
    other: /--reporter\b/,
  },
  {
    runner: "jest",
    word: "jest",
    flag: "--json",
    report: "jest_json",
    chosen: /(?<=\s)--json\b/,
    other: /(?!)/,
  },
  {
    runner: "tap",
    word: "tap",
    flag: "--reporter=tap",
    report: "tap",
    chosen: /(?:--reporter|-R)[= ]tap\b/,
    other: /(?:--reporter|-R)\b/,
  },
  {
    runner: "ava",
    word: "ava",
    flag: "--tap",
    report: "tap",
    chosen: /(?<=\s)(?:--tap|-t)\b/,
    other: /(?!)/,
  },
  {
    // `pytest`, `py.test`, `python3 -m pytest`: `-rA` lists every outcome in the short
    // summary, the failures by node id. A command's own `-r…` still ends with the counts.
    runner: "pytest",
    word: "(?:pytest|py\\.test)",
    flag: "-rA",
    report: "pytest_summary",
    chosen: /(?<=\s)-r[A-Za-z]*(?=\s|$)/,
    other: /(?!)/,
  },
  {
    runner: "go test",
    word: "go\\s+test",
    flag: "-json",
    report: "go_test_json",
    chosen: /(?<=\s)--?json\b/,
    other: /(?!)/,
  },
  {
    // libtest prints its summary whatever cargo is told; `--no-fail-fast` runs every test
    // binary, so one run names every failure. libtest's json and junit formats are not read.
    runner: "cargo test",
    word: "cargo\\s+test",
    flag: "--no-fail-fast",
    report: "libtest_summary",
    chosen: /(?<=\s)--no-fail-fast\b/,
    other: /(?<=\s)--format[= ](?:json|junit)\b/,
  },
];

/** mocha's reporters that end with its summary (`Base` reporters). */
const MOCHA_SUMMARY_REPORTERS = new Set(["spec", "dot", "list", "progress", "min", "nyan"]);

/** `python -m unittest`, `python3.12 -m unittest discover`, …: its summary is read as it is. */
const UNITTEST = /(?<=^|[\s;&|(/])python[\d.]*\s+-m\s+unittest(?=$|[\s;&|)])/;

/** `npm test`, `npm run x`, `pnpm test`, `pnpm run x`, `yarn test`, `yarn run x` and their arguments. */
const SCRIPT_CALL =
  /^\s*(npm|pnpm|yarn)\s+(?:(?:run|run-script)\s+([^\s-][^\s]*)|(test|t|tst))(?=\s|$)(.*)$/;

/** A shell list or pipe: what follows runs after (or reads the output of) what precedes. */
const SHELL_SEPARATOR = /&&|\|\||;|\|/;

/** How deep `npm test` → `npm run unit` → … is followed. */
const MAX_SCRIPT_DEPTH = 3;

/** A word of a shell command: `name` standing alone, or the last part of a path. */
function token(word: string): RegExp {
  return new RegExp(`(?<=^|[\\s;&|(/])${word}(?=$|[\\s;&|)])`);
}

/**
 * The command with a machine-readable reporter asked for, when the runner is one we
 * can read and the command did not choose a reporter itself: `node --test` gets
 * `--test-reporter=tap`, `vitest` `--reporter=json`, `jest` `--json`, node-tap
 * `--reporter=tap`, `ava` `--tap`, pytest `-rA`, `go test` `-json`, `cargo test`
 * `--no-fail-fast`; tape prints TAP, mocha and `python -m unittest` their summaries as
 * they are.
 * A package manager's script call (`npm test`, `pnpm run x`) is planned by the script
 * it runs, taken from `scripts` (the workspace's `package.json`).
 */
export function withMachineReporter(
  command: string,
  scripts: Readonly<Record<string, string>> = {},
): TestCommandPlan {
  return plan(command, scripts, 0);
}

function plan(
  command: string,
  scripts: Readonly<Record<string, string>>,
  depth: number,
): TestCommandPlan {
  const call = SCRIPT_CALL.exec(command);
  if (call !== null && !SHELL_SEPARATOR.test(command) && depth < MAX_SCRIPT_DEPTH) {
    const name = call[2] ?? "test";
    const body = scripts[name];
    if (body !== undefined) return planScriptCall(command, call[1] ?? "npm", body, scripts, depth);
  }
  if (/\bnode\b/.test(command) && token("--test").test(command)) {
    if (/--test-reporter=tap\b/.test(command))
      return { command, report: "node_tap", runner: "node" };
    if (command.includes("--test-reporter"))
      return { command, report: "exit_code", runner: "node" };
    return {
      command: command.replace(token("--test"), "--test --test-reporter=tap"),
      report: "node_tap",
      runner: "node",
    };
  }
  // Before the flagged runners: `mocha --reporter tap` is mocha, not node-tap.
  if (token("mocha").test(command)) {
    const reporter = /(?:--reporter|-R)[= ](\S+)/.exec(command)?.[1];
    if (reporter === undefined || MOCHA_SUMMARY_REPORTERS.has(reporter))
      return { command, report: "mocha_summary", runner: "mocha" };
    return { command, report: reporter === "tap" ? "tap" : "exit_code", runner: "mocha" };
  }
  if (UNITTEST.test(command)) return { command, report: "unittest_summary", runner: "unittest" };
  if (token("cargo\\s+nextest").test(command))
    return { command, report: "exit_code", runner: "cargo nextest" };
  if (token("tape").test(command)) {
    // Piped into a formatter (tap-spec, faucet), the TAP never reaches us.
    const piped = /\btape\b[^|]*\|(?!\|)/.test(command);
    return { command, report: piped ? "exit_code" : "tap", runner: "tape" };
  }
  for (const runner of FLAGGED) {
    const word = token(runner.word);
    if (!word.test(command)) continue;
    if (runner.chosen.test(command))
      return { command, report: runner.report, runner: runner.runner };
    if (runner.other.test(command)) return { command, report: "exit_code", runner: runner.runner };
    return {
      command: command.replace(word, (found) => `${found} ${runner.flag}`),
      report: runner.report,
      runner: runner.runner,
    };
  }
  return { command, report: "exit_code" };
}

/**
 * `npm test` (or `pnpm run x`, …) whose script is `body`. Nothing to add: the call as
 * it is. A flag to add: after the call's arguments (npm needs `--` first), when the
 * runner is the script's last command; node's through `NODE_OPTIONS`, which the test
 * runner reads wherever it is started; otherwise the script's own command, planned.
 */
function planScriptCall(
  command: string,
  manager: string,
  body: string,
  scripts: Readonly<Record<string, string>>,
  depth: number,
): TestCommandPlan {
  const inner = plan(body, scripts, depth + 1);
  const runner = inner.runner === undefined ? {} : { runner: inner.runner };
  if (inner.report === "exit_code" || inner.command === body)
    return { command, report: inner.report, ...runner };
  if (inner.runner === "node")
    return {
      command: `NODE_OPTIONS="--test-reporter=tap \${NODE_OPTIONS:-}" ${command}`,
      report: inner.report,
      ...runner,
    };
  const flagged = FLAGGED.find((candidate) => candidate.runner === inner.runner);
  const segments = body.split(SHELL_SEPARATOR);
  const last = segments.at(-1) ?? "";
  if (flagged !== undefined && token(flagged.word).test(last) && !SCRIPT_CALL.test(body)) {
    const separator = manager === "npm" && !/(?:^|\s)--(?:\s|$)/.test(command) ? " --" : "";
    return {
      command: `${command.trimEnd()}${separator} ${flagged.flag}`,
      report: inner.report,
      ...runner,
    };
  }
  return inner;
}
