// Prints what the model was told about each tool call of a run (`--json` result), then how it ended.
import { readFileSync } from "node:fs";

const run = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const message of run.messages) {
  if (message.role === "tool") console.log(`${message.tool} 的结果：${message.content}`);
}
console.log(`状态：${run.status}`);
