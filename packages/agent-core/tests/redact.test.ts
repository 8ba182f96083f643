import { describe, expect, it } from "vitest";
import { createRedactor } from "../src/redact.ts";
import { SECRET_CORPUS, secretCore } from "./fixtures/secret-corpus.ts";

describe("createRedactor", () => {
  const redact = createRedactor({ env: {} });

  it.each(SECRET_CORPUS)("masks %s", (secret) => {
    const out = redact(`before ${secret} after`);
    expect(out).not.toContain(secretCore(secret));
    expect(out).toContain("[REDACTED:");
    expect(out.startsWith("before ")).toBe(true);
  });

  it("masks a bearer token and keeps the scheme", () => {
    expect(redact("Authorization: Bearer abc.def-ghi_jkl")).not.toContain("abc.def-ghi_jkl");
    expect(redact("curl -H 'Bearer abc.def-ghi_jkl'")).toContain("Bearer [REDACTED:bearer-token]");
  });

  it("masks secret-looking fields in JSON and keeps the field name", () => {
    expect(redact('{"password":"hunter22","user":"ann"}')).toBe(
      '{"password":"[REDACTED:secret-field]","user":"ann"}',
    );
  });

  it("masks NAME=value assignments whose name ends with a secret word", () => {
    expect(redact("DB_PASSWORD=s3cr3tpass\nPORT=5432")).toBe(
      'DB_PASSWORD="[REDACTED:secret-field]"\nPORT=5432',
    );
  });

  it("leaves fields that merely contain a secret word alone", () => {
    const text = '{"inputTokens":120,"tokenizer":"bpe"}';
    expect(redact(text)).toBe(text);
  });

  it("masks the values of secret-looking environment variables wherever they appear", () => {
    const withEnv = createRedactor({
      env: { MY_SERVICE_TOKEN: "plain-looking-value-42", HOME: "/home/ann" },
    });
    expect(withEnv("got plain-looking-value-42 back")).toBe("got [REDACTED:env] back");
  });

  it("does not mask values of ordinary environment variables", () => {
    const withEnv = createRedactor({ env: { HOME: "/home/ann", EDITOR: "vim" } });
    expect(withEnv("cd /home/ann && vim")).toBe("cd /home/ann && vim");
  });

  it("masks extra literal secrets, the longest first", () => {
    const withSecrets = createRedactor({ env: {}, secrets: ["abc123", "abc123456789"] });
    expect(withSecrets("x abc123456789 y")).toBe("x [REDACTED:env] y");
  });

  it("leaves ordinary text unchanged", () => {
    const text = "读取 README.md 成功，共 42 行；skip this; task-list ok";
    expect(redact(text)).toBe(text);
  });
});
