export type { Action } from "./action.ts";
export { ScriptExhaustedError } from "./errors.ts";
export type { ModelRequest, Provider } from "./provider.ts";
export { createScriptedProvider, type ScriptedProvider } from "./scripted-provider.ts";
