import { runAgent, type TraceEvent } from "@coding-agent/agent-core";
import { createScriptedProvider } from "@coding-agent/agent-core/testing";
import { createRedactor } from "@lab";
import { describe, expect, it } from "vitest";
import { NOT_SECRETS, SECRETS } from "./corpus.ts";

const redact = createRedactor({ env: {} });

describe("createRedactor: secrets in the corpus", () => {
  const rows = SECRETS.map((c) => [c.name, c.kind, c] as const);
  it.each(rows)("masks %s as [REDACTED:%s]", (_name, _kind, { text, secret, kind }) => {
    const out = redact(text);
    expect(out, "密钥原文仍在输出里").not.toContain(secret);
    expect(out).toContain(`[REDACTED:${kind}]`);
  });
});

describe("createRedactor: look-alikes in the corpus", () => {
  const rows = NOT_SECRETS.map((c) => [c.name, c.text] as const);
  it.each(rows)("leaves %s as it is", (_name, text) => {
    expect(redact(text), "不是密钥的内容被改动了").toBe(text);
  });
});

describe("createRedactor: the corpus as a whole", () => {
  it("masks every secret and nothing else, and prints the counts", () => {
    const truePositives = SECRETS.filter(({ text, secret }) => !redact(text).includes(secret));
    const falsePositives = NOT_SECRETS.filter(({ text }) => redact(text) !== text);
    console.info(
      `脱敏语料：密钥 ${truePositives.length}/${SECRETS.length} 被遮蔽，` +
        `误伤 ${falsePositives.length}/${NOT_SECRETS.length}`,
    );
    expect(
      SECRETS.length - truePositives.length,
      `漏掉的：${SECRETS.filter((c) => !truePositives.includes(c))
        .map((c) => c.name)
        .join("、")}`,
    ).toBe(0);
    expect(
      falsePositives.map((c) => c.name),
      "误伤的",
    ).toEqual([]);
  });
});

describe("createRedactor: values and context", () => {
  it("masks the value of a secret-looking environment variable, whatever its shape", () => {
    const withEnv = createRedactor({
      env: { DB_PASSWORD: "correct-horse-battery", HOME: "/home/ada" },
    });
    expect(withEnv("login with correct-horse-battery at /home/ada")).toBe(
      "login with [REDACTED:env] at /home/ada",
    );
  });

  it("masks every occurrence, not only the first", () => {
    const withEnv = createRedactor({ env: { API_TOKEN: "tok-12345678" } });
    const key = `ghp_${"b".repeat(36)}`;
    const out = withEnv(`tok-12345678 ${key} tok-12345678 ${key}`);
    expect(out).toBe(
      "[REDACTED:env] [REDACTED:github-token] [REDACTED:env] [REDACTED:github-token]",
    );
  });

  it("masks extra literal values given by the caller", () => {
    expect(createRedactor({ secrets: ["hunter2-hunter2"] })("pw=hunter2-hunter2")).toBe(
      "pw=[REDACTED:env]",
    );
  });

  it("keeps the context in front of a secret: the header name and the URL user", () => {
    expect(redact("Authorization: Bearer abcdefgh12345678")).toBe(
      "Authorization: Bearer [REDACTED:authorization]",
    );
    expect(redact("https://ada:pa55word@git.example.com/repo.git")).toBe(
      "https://ada:[REDACTED:url-credentials]@git.example.com/repo.git",
    );
  });

  it("leaves short environment values alone, so ordinary words survive", () => {
    expect(createRedactor({ env: { AUTH_MODE: "on" } })("turn it on")).toBe("turn it on");
  });
});

describe("runAgent with the redactor", () => {
  it("masks a secret a tool returns before the model or the trace sees it", async () => {
    const key = `sk-proj-${"k".repeat(40)}`;
    const events: TraceEvent[] = [];
    const provider = createScriptedProvider([
      { action: { type: "tool_call", tool: "read_env", input: {} } },
      { action: { type: "finish", summary: "读完了" } },
    ]);
    const result = await runAgent(
      "看看配置",
      provider,
      { read_env: { execute: () => `OPENAI_API_KEY=${key}\nDB_PASSWORD=correct-horse-battery` } },
      { maxSteps: 5 },
      undefined,
      {
        redact: createRedactor({ env: { DB_PASSWORD: "correct-horse-battery" } }),
        trace: (event) => {
          events.push(event);
        },
      },
    );
    expect(result.status).toBe("completed");
    const seen = JSON.stringify(provider.requests[1]?.messages);
    expect(seen, "模型看到了密钥").not.toContain(key);
    expect(seen, "模型看到了环境变量里的密码").not.toContain("correct-horse-battery");
    expect(seen).toContain("[REDACTED:");
    expect(JSON.stringify(events), "Trace 里有密钥").not.toMatch(/kkkkkkkk|correct-horse/);
  });
});
