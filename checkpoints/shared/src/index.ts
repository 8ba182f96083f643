/** `@bootcamp/checkpoint-shared`: what the weekly checkpoints share (the vitest config: `./vitest`). */
export { cliJson, jsonOrUndefined, judgeByRefusal, Refusal, refuse } from "./refusal.ts";
export { failed, formatVerdict, passed, printVerdict, type Verdict } from "./verdict.ts";
