// Plain JavaScript on purpose: vitest configs, lab-kit's runner child and the workspace bin
// of `coding-agent` import it with Node, before any TypeScript transform.

/**
 * The export condition under which every `@coding-agent/*` package resolves to its
 * TypeScript sources (`src/`) instead of its build (`dist/`). Inside this workspace every
 * tool sets it (TypeScript `customConditions`, vitest, tsx `--conditions`, the workspace
 * bin), so tests and smokes never need a build and never see a stale one. Outside, nobody
 * sets it and the published `dist/` is used. Named after the scope so that a consumer's own
 * conditions (`source`, `development`) never select these sources by accident.
 */
export const SOURCE_CONDITION = "@coding-agent/source";

/**
 * `ssr.resolve.conditions` for vite and vitest: the source condition, then vite's own
 * defaults for server code (`defaultServerConditions`, checked equal by the packaging test),
 * which an explicit list would otherwise replace.
 */
export const SOURCE_SSR_CONDITIONS = [SOURCE_CONDITION, "module", "node", "development|production"];
