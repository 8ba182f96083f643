import type { FailureKind } from "./runner-types.ts";

/** An error as the vitest child process serializes it. */
export interface SerializedTestError {
  readonly name: string;
  readonly message: string;
  readonly stack: string;
}

const TIMEOUT_MESSAGE = /^(Test|Hook) timed out in \d+ms/;
const MAX_MESSAGE_LENGTH = 400;

/**
 * Why a test failed, from the errors vitest recorded for it: a timeout (vitest's own
 * per-test timer fired), an assertion (`expect` or `assert`), or any other thrown error.
 * Load errors are decided per file, not here.
 */
export function classifyFailure(errors: readonly SerializedTestError[]): {
  kind: FailureKind;
  message: string;
} {
  const first = errors[0];
  if (first === undefined) return { kind: "error", message: "测试失败，但没有记录到错误" };
  const message = shortMessage(first);
  if (TIMEOUT_MESSAGE.test(first.message)) return { kind: "timeout", message };
  if (first.name === "AssertionError") return { kind: "assertion", message };
  return { kind: "error", message };
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
