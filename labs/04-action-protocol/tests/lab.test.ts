import { fingerprintAction, parseAction } from "@lab";
import { describe, expect, it } from "vitest";

describe("parseAction", () => {
  it("returns a valid message, tool_call or finish reply as that action", () => {
    const replies = [
      { type: "message", content: "我先看看目录" },
      { type: "tool_call", tool: "read_file", input: { path: "README.md" }, callId: "c1" },
      { type: "finish", summary: "已完成" },
    ];

    for (const reply of replies) {
      expect(parseAction(reply), `${reply.type} 回复应原样成为动作`).toEqual({
        ok: true,
        action: reply,
      });
    }
  });

  it("rejects a reply that is not an object, with a reason", () => {
    for (const reply of [null, "finish", ["tool_call"], 42]) {
      const result = parseAction(reply);
      const label = `回复 ${JSON.stringify(reply)}`;
      expect(result.ok, `${label} 不是对象，应被拒绝`).toBe(false);
      expect(result.ok ? "" : result.reason, `${label} 的原因应说明必须是对象`).toContain(
        "必须是对象",
      );
    }
  });

  it("rejects an unknown type with a reason that lists the valid ones", () => {
    const result = parseAction({ type: "shell", command: "rm -rf /" });

    expect(result, 'type 为 shell 的回复应被拒绝，原因里带上 "shell"').toEqual({
      ok: false,
      reason: expect.stringContaining('"shell"'),
    });
    expect(result.ok ? "" : result.reason, "原因应列出合法的 type").toContain(
      "message、tool_call、finish",
    );
  });

  it("rejects a tool_call whose input is not a JSON object, naming input", () => {
    for (const input of [["README.md"], "README.md", null]) {
      const result = parseAction({ type: "tool_call", tool: "read_file", input });
      const label = `input 为 ${JSON.stringify(input)} 的 tool_call`;
      expect(result.ok, `${label} 应被拒绝`).toBe(false);
      expect(result.ok ? "" : result.reason, `${label} 的原因应点名 input`).toContain("input");
    }
  });

  it("rejects a reply carrying a field outside the protocol, naming that field", () => {
    const result = parseAction({ type: "finish", summary: "已完成", thoughts: "其实还没跑测试" });

    expect(result.ok, "夹带 thoughts 字段的 finish 应被拒绝").toBe(false);
    expect(result.ok ? "" : result.reason, "原因应点名多出来的 thoughts 字段").toContain(
      "thoughts",
    );
  });
});

describe("fingerprintAction", () => {
  it("is the same for two parsed replies whose top-level fields come in a different order", () => {
    const first = parseAction({ type: "tool_call", tool: "read_file", input: { path: "a.ts" } });
    const second = parseAction({ input: { path: "a.ts" }, tool: "read_file", type: "tool_call" });

    expect(first.ok && second.ok, "两种字段顺序的回复都应解析成功").toBe(true);
    if (first.ok && second.ok) {
      expect(fingerprintAction(second.action), "字段顺序不同的同一动作，指纹应相同").toBe(
        fingerprintAction(first.action),
      );
    }
  });
});
