import { afterEach, describe, expect, it, vi } from "vitest";
import { createRedactor, redactorForEnvironment } from "../src/redact.ts";
import { NEGATIVES, POSITIVES, SECRET_CORPUS, secretCore } from "./fixtures/secret-corpus.ts";

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

  it("masks every occurrence, not only the first", () => {
    const key = SECRET_CORPUS[0] ?? "";
    expect(redact(`${key} and ${key} and ${key}`)).toBe(
      "[REDACTED:openai-key] and [REDACTED:openai-key] and [REDACTED:openai-key]",
    );
    const withSecret = createRedactor({ env: {}, secrets: ["s3cr3t-value"] });
    expect(withSecret("s3cr3t-value s3cr3t-value")).toBe("[REDACTED:env] [REDACTED:env]");
  });

  it("names the shape in each marker", () => {
    expect(redact("AKIAIOSFODNN7EXAMPLE")).toBe("[REDACTED:aws-access-key]");
    expect(redact(`ghp_${"a".repeat(36)}`)).toBe("[REDACTED:github-token]");
    expect(redact(`sk-ant-${"b".repeat(20)}`)).toBe("[REDACTED:anthropic-key]");
    expect(redact("postgres://u:pw-1234@h/db")).toBe(
      "postgres://u:[REDACTED:url-credentials]@h/db",
    );
    expect(redact("Authorization: Bearer abcdefgh")).toBe(
      "Authorization: Bearer [REDACTED:authorization]",
    );
    expect(redact("Bearer abcdefghij")).toBe("Bearer [REDACTED:bearer-token]");
  });

  it("escapes regular-expression characters in a literal secret instead of interpreting them", () => {
    const withSecret = createRedactor({ env: {}, secrets: ["a.b*c+(d)[e]$"] });
    expect(withSecret("x a.b*c+(d)[e]$ y")).toBe("x [REDACTED:env] y");
    expect(withSecret("axbbbc+(d)[e]$ abc")).toBe("axbbbc+(d)[e]$ abc");
  });

  it("ignores an empty literal secret instead of masking between every character", () => {
    expect(createRedactor({ env: {}, secrets: [""] })("abc")).toBe("abc");
    expect(createRedactor({ env: {}, secrets: ["", "abc123"] })("x abc123")).toBe(
      "x [REDACTED:env]",
    );
  });

  it("ignores secret-looking environment values shorter than six characters", () => {
    const withEnv = createRedactor({ env: { API_TOKEN: "12345", SESSION_KEY: "123456" } });
    expect(withEnv("12345 and 123456")).toBe("12345 and [REDACTED:env]");
  });

  it("changes nothing when applied twice", () => {
    for (const { text } of POSITIVES) {
      const once = redact(text);
      expect(redact(once), text).toBe(once);
    }
  });

  it("applies custom patterns with flags the prefilter cannot combine", () => {
    const custom = createRedactor({
      env: {},
      patterns: [{ name: "line", pattern: /^secret line$/gm }],
    });
    expect(custom("a\nsecret line\nb")).toBe("a\n[REDACTED:line]\nb");
  });

  it("stays linear on long runs of word characters and separators", () => {
    // A backtracking name prefix would take minutes here; the timeout turns that into a failure.
    const text = `${"a-".repeat(200_000)}${"x".repeat(200_000)}`;
    expect(redact(text)).toBe(text);
  }, 20_000);
});

describe("createRedactor's options", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads process.env when no environment is given", () => {
    vi.stubEnv("AGENT_CORE_TEST_TOKEN", "stubbed-value-4711");
    expect(createRedactor()("got stubbed-value-4711")).toBe("got [REDACTED:env]");
    expect(redactorForEnvironment()("got stubbed-value-4711")).toBe("got [REDACTED:env]");
  });

  it.each([
    "OPENAI_API_KEY",
    "GH_TOKEN",
    "CLIENT_SECRET",
    "DB_PASSWORD",
    "DB_PASSWD",
    "GOOGLE_CREDENTIALS",
    "SSH_PRIVATE",
    "BASIC_AUTH",
    "COOKIE",
    "SESSION",
    "my_token",
  ])("treats the value of %s as a secret", (name) => {
    const text = "use value-9f8e7d here";
    expect(createRedactor({ env: { [name]: "value-9f8e7d" } })(text)).toBe(
      "use [REDACTED:env] here",
    );
    expect(redactorForEnvironment({ [name]: "value-9f8e7d" })(text)).toBe(
      "use [REDACTED:env] here",
    );
  });

  it("leaves the values of other variables and short secret values alone", () => {
    const env = { HOME: "/home/ann/work", EDITOR: "code --wait", API_TOKEN: "12345" };
    const text = "/home/ann/work code --wait 12345";
    expect(createRedactor({ env })(text)).toBe(text);
    expect(redactorForEnvironment(env)(text)).toBe(text);
  });

  it("replaces the default patterns with custom ones", () => {
    const custom = createRedactor({
      env: {},
      patterns: [{ name: "ticket", pattern: /\bTICKET-\d+/g }],
    });
    const key = SECRET_CORPUS[0] ?? "";
    expect(custom(`TICKET-42 and ${key}`)).toBe(`[REDACTED:ticket] and ${key}`);
  });

  it("masks with a custom case-insensitive pattern whatever the case", () => {
    const custom = createRedactor({
      env: {},
      patterns: [{ name: "word", pattern: /CODEWORD/gi }],
    });
    expect(custom("codeword, CodeWord")).toBe("[REDACTED:word], [REDACTED:word]");
  });

  it("masks nothing with no patterns and no secrets", () => {
    const none = createRedactor({ env: {}, patterns: [] });
    const key = SECRET_CORPUS[0] ?? "";
    expect(none(`password=${key}`)).toBe(`password=${key}`);
  });

  it("masks literal secrets together with custom patterns", () => {
    const both = createRedactor({
      env: {},
      secrets: ["lit-secret-1"],
      patterns: [{ name: "ticket", pattern: /\bTICKET-\d+/g }],
    });
    expect(both("lit-secret-1 TICKET-7")).toBe("[REDACTED:env] [REDACTED:ticket]");
  });

  it("keeps a field's prefix and leaves an already masked field as it is", () => {
    const redact = createRedactor({ env: {} });
    expect(redact("api_key: 'abcd1234'")).toBe('api_key: "[REDACTED:secret-field]"');
    const masked = '{"token":"[REDACTED:secret-field]"}';
    expect(redact(masked)).toBe(masked);
    expect(redact("token=[REDACTED:env]")).toBe("token=[REDACTED:env]");
  });
});

describe("the secret corpus", () => {
  const redact = createRedactor({ env: {} });

  it("masks every positive and changes no negative, and prints the counts", () => {
    const missed = POSITIVES.filter(({ text, secret }) => redact(text).includes(secret));
    const altered = NEGATIVES.filter(({ text }) => redact(text) !== text);
    const counts = {
      truePositives: POSITIVES.length - missed.length,
      falseNegatives: missed.length,
      trueNegatives: NEGATIVES.length - altered.length,
      falsePositives: altered.length,
    };
    console.log(
      `secret corpus: ${counts.truePositives}/${POSITIVES.length} secrets masked, ` +
        `${counts.falsePositives}/${NEGATIVES.length} harmless texts altered`,
    );
    expect({
      ...counts,
      missed: missed.map(({ name }) => name),
      altered: altered.map(({ name, text }) => `${name}: ${redact(text)}`),
    }).toEqual({
      truePositives: POSITIVES.length,
      falseNegatives: 0,
      trueNegatives: NEGATIVES.length,
      falsePositives: 0,
      missed: [],
      altered: [],
    });
  });
});

describe("redactorForEnvironment", () => {
  it("masks the secret-looking values of the environment it is given", () => {
    const redact = redactorForEnvironment({ DEPLOY_TOKEN: "deploy-value-123", HOME: "/home/ann" });
    expect(redact("deploy-value-123 in /home/ann")).toBe("[REDACTED:env] in /home/ann");
  });

  it("reuses the compiled redactor while the secret values stay the same, and not after", () => {
    const first = redactorForEnvironment({ A_TOKEN: "value-one-111", PATH: "/bin" });
    expect(redactorForEnvironment({ A_TOKEN: "value-one-111", PATH: "/usr/bin" })).toBe(first);
    const rotated = redactorForEnvironment({ A_TOKEN: "value-two-222" });
    expect(rotated).not.toBe(first);
    expect(rotated("value-two-222 value-one-111")).toBe("[REDACTED:env] value-one-111");
  });
});
