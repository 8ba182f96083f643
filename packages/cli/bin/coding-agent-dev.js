#!/usr/bin/env node
// `coding-agent` inside this repository: runs the TypeScript sources, no build step. Node
// strips their types itself (>= 22.18), and a resolve hook adds the source condition so that
// `@coding-agent/*` imports reach each package's src/ too, never a possibly stale dist/.
// The published package's bin is coding-agent.js (see publishConfig.bin), which runs dist/.
import { registerHooks } from "node:module";
import { SOURCE_CONDITION } from "../../../source-condition.js";

registerHooks({
  resolve: (specifier, context, next) =>
    next(specifier, { ...context, conditions: [...context.conditions, SOURCE_CONDITION] }),
});
await import("../src/main.ts");
