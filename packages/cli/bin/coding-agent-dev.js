#!/usr/bin/env node
// `coding-agent` inside this repository: runs the TypeScript sources, no build step.
// tsx compiles them on load, and a resolve hook adds the source condition so that
// `@coding-agent/*` imports reach each package's src/ too, never a possibly stale dist/.
// The published package's bin is coding-agent.js (see publishConfig.bin), which runs dist/.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";
import { SOURCE_CONDITION } from "../../../source-condition.js";

registerTsx();
// Registered last, so it runs first: every later resolver sees the extra condition.
const addSourceCondition = `export async function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, ${JSON.stringify(SOURCE_CONDITION)}] });
}`;
register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);
await import("../src/main.ts");
