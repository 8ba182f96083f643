export { chooseCompaction } from "./choose-compaction.ts";
