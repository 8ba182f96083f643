export type { Action, ActionParseResult } from "./action.ts";
export {
  ACTION_TYPES,
  ActionSchema,
  describeIssues,
  describeValue,
  FinishActionSchema,
  MessageActionSchema,
  parseAction,
  ToolCallActionSchema,
} from "./action.ts";
export { fingerprintAction } from "./fingerprint.ts";
