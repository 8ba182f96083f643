import path from "node:path";
import { toPosixPath } from "../posix-path.ts";
import { isLoopTimeout, LOOP_TIMEOUT_MESSAGE } from "./settings.ts";
import type { FailureKind } from "./targets.ts";

/** An error as the vitest child process serializes it. */
export interface SerializedTestError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

const TIMEOUT_MESSAGE = /^(Test|Hook) timed out in \d+ms/;
/** vitest's error when `expect.requireAssertions` is on and a test made no assertion. */
const NO_ASSERTIONS_MESSAGE = /^expected any number of assertion, but got none/;
/** A stack frame's file: `at fn (/a/b.ts:1:2)`, `at /a/b.ts:1:2`, or `file:///a/b.ts:1:2`. */
const FRAME_FILE = /^\s*at (?:.*? \()?(?:file:\/\/)?(.+?):\d+:\d+\)?$/;
const MAX_MESSAGE_LENGTH = 400;

/**
 * Why a test failed, from the errors vitest recorded for it: a timeout (vitest's own
 * per-test timer fired, or the loop guard ended an endless loop), no assertion at all, an assertion (`expect` or `assert`) raised
 * in the tests themselves, or any other thrown error. An `AssertionError` thrown by the
 * code under test (its own `node:assert` call) is an error, not a failed assertion: only
 * an error whose first frame outside dependencies lies in `testsDir` counts. Load errors
 * are decided per file, not here.
 */
export function classifyFailure(
  errors: readonly SerializedTestError[],
  labDir: string,
): { kind: FailureKind; message: string } {
  const testsDir = path.join(labDir, "tests");
  const first = errors[0];
  if (first === undefined) return { kind: "error", message: "测试失败，但没有记录到错误" };
  // The loop guard's error may come second: the code under test caught the first one and
  // went on, and the test then failed on what it returned.
  if (errors.some((error) => isLoopTimeout(error.message))) {
    return { kind: "timeout", message: LOOP_TIMEOUT_MESSAGE };
  }
  const message = shortMessage(first);
  if (TIMEOUT_MESSAGE.test(first.message)) return { kind: "timeout", message };
  if (NO_ASSERTIONS_MESSAGE.test(first.message)) {
    return { kind: "no-assertions", message: "测试里没有任何 expect 断言" };
  }
  if (first.name === "AssertionError") {
    const origin = firstOwnFrame(first.stack);
    if (origin === undefined || isInside(testsDir, origin)) return { kind: "assertion", message };
    const shown = toPosixPath(path.relative(labDir, origin));
    return { kind: "error", message: `${message}（由被测代码 ${shown} 抛出，不是测试里的断言）` };
  }
  return { kind: "error", message };
}

/** The file of the first stack frame that is not a dependency or Node internal. */
function firstOwnFrame(stack: string): string | undefined {
  for (const line of stack.split("\n")) {
    const file = FRAME_FILE.exec(line)?.[1];
    if (file === undefined) continue;
    if (file.startsWith("node:") || file.includes("/node_modules/")) continue;
    return file;
  }
  return undefined;
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** First meaningful line of an error, prefixed by its class unless it is a plain Error. */
export function shortMessage(error: SerializedTestError): string {
  const line =
    error.message
      .split("\n")
      .map((part) => part.trim())
      .find((part) => part !== "") ?? "";
  const text = error.name === "Error" || error.name === "" ? line : `${error.name}: ${line}`;
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}
