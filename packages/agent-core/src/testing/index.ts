/**
 * Test helpers of `@coding-agent/agent-core`, on their own entry so production
 * code never imports a fake model by accident.
 */
export {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedTurn,
  ScriptedTurnSchema,
  ScriptSchema,
  snapshotRequest,
} from "./scripted-provider.ts";
