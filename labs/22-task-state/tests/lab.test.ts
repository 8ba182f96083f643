import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "@coding-agent/cli";
import { readStateLog } from "@lab";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const line = (event: Record<string, unknown>) => `${JSON.stringify(event)}\n`;
const started = line({ seq: 1, type: "run_started", goal: "修复" });
const reply = line({ seq: 2, type: "model_reply", step: 1, actions: [] });
const intent = line({ seq: 3, type: "tool_intent", callId: "call_1", tool: "edit_file" });
const clean = started + reply + intent;
const bytes = (text: string) => Buffer.byteLength(text);

describe("readStateLog", () => {
  it("reads every complete line in order and counts their bytes", () => {
    const read = readStateLog(clean);
    expect(read, "三行完整的日志").toMatchObject({ ok: true, bytes: bytes(clean) });
    expect(read.ok && read.events.map((event) => event.type)).toEqual([
      "run_started",
      "model_reply",
      "tool_intent",
    ]);
    expect(read.ok && read.warning, "没有不完整的行").toBeUndefined();
  });

  it("drops a torn last line with a warning, and counts only the lines it kept", () => {
    for (const [name, text] of [
      ["写到一半的 JSON", `${started}${reply}{"seq":3,"type":"tool_in`],
      ["完整的 JSON 但还没写换行", started + reply + intent.trimEnd()],
      ["被截断后又跟了换行", `${started}${reply}{"seq":3,"ty\n`],
    ] as const) {
      const read = readStateLog(text);
      expect(read.ok, name).toBe(true);
      expect(read.ok && read.events.map((event) => event.seq), name).toEqual([1, 2]);
      expect(read.ok ? (read.warning ?? "没有警告") : "读取失败", name).toContain("不完整");
      expect(read.ok && read.bytes, `${name}：字节数只算留下的两行`).toBe(bytes(started + reply));
    }
  });

  it("refuses a broken line that is not the last one, naming it", () => {
    const read = readStateLog(`${started}{"seq":2,oops\n${intent}`);
    expect(read.ok, "中间坏了一行：后面的事件说不清前因").toBe(false);
    expect(!read.ok && read.message, "报错指出第几行").toContain("第 2 行");
  });

  it("refuses a broken last line that a torn tail follows: a crash tears one write, not two", () => {
    const read = readStateLog(`${started}{"seq":2,oops\n{"seq":3,"ty`);
    expect(read.ok, "半行前面又坏了一行：不是一次崩溃能留下的").toBe(false);
    expect(!read.ok && read.message, "报错指出第几行").toContain("第 2 行");
  });

  it("refuses a gap or a repeat in seq", () => {
    for (const [name, text] of [
      ["少了 seq 2", started + intent],
      ["seq 2 出现两次", started + reply + reply],
    ] as const) {
      const read = readStateLog(text);
      expect(read.ok, name).toBe(false);
      expect(!read.ok && read.message, name).toContain("seq");
    }
  });

  it("refuses a log that does not begin with run_started", () => {
    const read = readStateLog(line({ seq: 1, type: "model_reply", step: 1 }));
    expect(read.ok, "没有 run_started 就不知道这是哪次运行").toBe(false);
  });
});

describe("readStateLog on the logs the coding-agent CLI writes", () => {
  let home: string;
  let log: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "lab-22-home-"));
    const workspace = await mkdtemp(join(tmpdir(), "lab-22-ws-"));
    const script = join(home, "script.json");
    await writeFile(
      script,
      JSON.stringify([
        {
          action: {
            type: "tool_call",
            tool: "write_file",
            input: { path: "a.txt", content: "一\n" },
          },
        },
        { action: { type: "tool_call", tool: "read_file", input: { path: "a.txt" } } },
        { action: { type: "finish", summary: "写好了" } },
      ]),
    );
    const out: string[] = [];
    await runCli(
      [
        "run",
        "写一个文件",
        "--script",
        script,
        "--workspace",
        workspace,
        "--approval",
        "auto",
        "--json",
      ],
      { stdout: (text) => out.push(text), stderr: () => {} },
      new AbortController().signal,
      { CODING_AGENT_HOME: home },
    );
    const { runDir } = JSON.parse(out.join("")) as { runDir: string };
    log = await readFile(join(runDir, "state.jsonl"), "utf8");
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it("reads a crash at every byte back as the events written before it", () => {
    const whole = readStateLog(log);
    if (!whole.ok) throw new Error(`完整的日志读不出来：${whole.message}`);
    expect(whole.events.at(-1)?.type, "完整日志的最后一条").toBe("run_finished");
    // Every cut is checked; the first wrong one is reported (one assertion per cut would
    // make this test slow for nothing).
    const at = (cut: number) => {
      const text = log.slice(0, cut);
      const read = readStateLog(text);
      const complete = text.split("\n").length - 1;
      const where = `崩溃在第 ${complete + 1} 行的第 ${cut - text.lastIndexOf("\n") - 1} 个字符之后`;
      const events = read.ok && read.events.length;
      const warned = read.ok && Boolean(read.warning);
      const torn = !text.endsWith("\n");
      return {
        where,
        events,
        complete,
        warned,
        torn,
        right: events === complete && warned === torn,
      };
    };
    let checked = 0;
    for (let cut = log.indexOf("\n") + 1; cut < log.length; cut += 1) {
      const result = at(cut);
      if (!result.right) {
        expect(result.events, result.where).toBe(result.complete);
        expect(result.warned, `${result.where}：是否警告`).toBe(result.torn);
      }
      checked += 1;
    }
    expect(checked, "检查过的截断位置").toBe(log.length - log.indexOf("\n") - 1);
  });

  it("gives the bytes to cut at, so what a resume appends after a crash reads back whole", () => {
    const crashed = log.slice(0, log.indexOf('"type":"tool_result"') + 10);
    const read = readStateLog(crashed);
    if (!read.ok) throw new Error(`崩溃后的日志读不出来：${read.message}`);
    const resumed = `${Buffer.from(crashed).subarray(0, read.bytes).toString()}${line({
      seq: read.events.length + 1,
      type: "resumed",
    })}`;
    const again = readStateLog(resumed);
    expect(again.ok && again.events.at(-1)?.type, "截断之后追加的一行").toBe("resumed");
    expect(again.ok && again.warning, "截断之后不再有不完整的行").toBeUndefined();
  });
});
