/**
 * 一个粗心的调用方，用来手动观察这个 Fake：
 * `pnpm exec tsx labs/03-provider-fake-model/solution/src/demo.ts`。它的脚本忘了写 `finish`，调用方
 * 一直问，直到看见一个为止。
 */
import { createScriptedProvider } from "./scripted-provider.ts";

const provider = createScriptedProvider([
  { type: "tool_call", tool: "read_file", input: { path: "README.md" } },
  { type: "message", content: "README 已读完" },
]);
const observations: string[] = [];

try {
  for (let step = 1; ; step += 1) {
    const action = await provider.complete({ task: "读取 README 并总结", observations });
    console.log(`第 ${step} 步：${action.type}`);
    if (action.type === "finish") break;
    observations.push(
      action.type === "message"
        ? `message:${action.content}`
        : `tool:${action.tool}:{"content":"hello"}`,
    );
  }
} catch (error) {
  console.log(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

console.log("记录下的请求：");
for (const request of provider.requests) {
  console.log(`  observations = ${JSON.stringify(request.observations)}`);
}
