export { readStateLog, type StateLine, type StateLogRead } from "./read-log.ts";
