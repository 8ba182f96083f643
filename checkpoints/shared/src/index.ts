/**
 * `@bootcamp/checkpoint-shared`: what the weekly checkpoints share. The vitest config is
 * `./vitest`; `./testing` holds what their tests share.
 */
export { cliJson, jsonOrUndefined, judgeByRefusal, Refusal, refuse } from "./refusal.ts";
export { failed, formatVerdict, passed, printVerdict, type Verdict } from "./verdict.ts";
