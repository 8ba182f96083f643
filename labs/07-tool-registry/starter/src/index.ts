export { withSerializedResults } from "./result-tools.ts";
export {
  capText,
  marker,
  type SerializeOptions,
  serializeResult,
  toStableJson,
} from "./serialize-result.ts";
