// Prints what the finish gate said during a run: each rejection, then the evidence of the accepted finish.
import { readFileSync } from "node:fs";

const run = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const message of run.messages) {
  if (message.type === "finish_rejected") {
    console.log(`完成被拒：${message.reasons.join("、")}（${message.content}）`);
  }
}
const { evidence } = run;
console.log(`状态：${run.status}`);
console.log(`测试证据是最新的：${evidence.tests.version === evidence.endVersion}`);
console.log(`改动的文件：${JSON.stringify(evidence.changedFiles)}`);
