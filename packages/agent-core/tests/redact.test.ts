import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createRedactor,
  DEFAULT_SECRET_PATTERNS,
  redactorForEnvironment,
  SECRET_ENV_NAME,
} from "../src/redact.ts";
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

  it("masks NAME=value assignments whose name ends with a secret word, adding no quotes", () => {
    expect(redact("DB_PASSWORD=s3cr3tpass\nPORT=5432")).toBe(
      "DB_PASSWORD=[REDACTED:secret-field]\nPORT=5432",
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
    expect(redact("api_key: 'abcd1234'")).toBe("api_key: '[REDACTED:secret-field]'");
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

describe("the exact shapes and markers", () => {
  const redact = createRedactor({ env: {} });
  const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

  it.each([
    ["google-api-key", `AIza${"G00gleK3y_-".repeat(4).slice(0, 35)}`],
    ["slack-token", "xoxb-2048-4096-AbCdEfGhIj"],
    ["slack-webhook", "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/XxXxXxXx"],
    ["stripe-key", `sk_live_${"51HfakeStripeKey".repeat(2)}`],
    ["jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU"],
    ["private-key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----"],
  ])("names a %s in its marker", (name, secret) => {
    expect(redact(`got ${secret} here`)).toBe(`got [REDACTED:${name}] here`);
  });

  it.each([
    ["no type", "PRIVATE KEY"],
    ["a one-word type", "RSA PRIVATE KEY"],
    ["a two-word type", "OPENSSH ENCRYPTED PRIVATE KEY"],
  ])("ends a private key block with %s at its END line, keeping the text after it", (_, kind) => {
    const block = `-----BEGIN ${kind}-----\nMIIEowIBAAKCAQEAfake\n-----END ${kind}-----`;
    expect(redact(`key:\n${block}\nfingerprint ok`)).toBe(
      "key:\n[REDACTED:private-key]\nfingerprint ok",
    );
  });

  it.each([
    [
      "quoted in CSV",
      `"AKIAI44QH8DHBEXAMPLE","${AWS_SECRET}"`,
      `"[REDACTED:aws-access-key]","[REDACTED:aws-secret-key]"`,
    ],
    [
      "with spaces around =",
      `AKIAI44QH8DHBEXAMPLE = ${AWS_SECRET} done`,
      "[REDACTED:aws-access-key] = [REDACTED:aws-secret-key] done",
    ],
    [
      "in JSON",
      `{"AKIAI44QH8DHBEXAMPLE": "${AWS_SECRET}"}`,
      `{"[REDACTED:aws-access-key]": "[REDACTED:aws-secret-key]"}`,
    ],
    [
      "followed by more text",
      `AKIAI44QH8DHBEXAMPLE ${AWS_SECRET} (rotated)`,
      "[REDACTED:aws-access-key] [REDACTED:aws-secret-key] (rotated)",
    ],
  ])("masks an AWS secret key written after its id %s", (_, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it("does not take a longer run of key characters after an AWS id for a secret key", () => {
    expect(redact(`AKIAI44QH8DHBEXAMPLE ${AWS_SECRET}Z`)).toBe(
      `[REDACTED:aws-access-key] ${AWS_SECRET}Z`,
    );
  });

  it.each([
    [
      "a quoted JSON field",
      '{"Authorization": "Basic dXNlcjpwYXNz"}',
      '{"Authorization": "Basic [REDACTED:authorization]"}',
    ],
    [
      "a space before the colon",
      "Authorization : Bearer abcd1234",
      "Authorization : Bearer [REDACTED:authorization]",
    ],
    [
      "no space after the colon",
      "Authorization:Basic dXNlcjpwYXNz",
      "Authorization:Basic [REDACTED:authorization]",
    ],
    [
      "several spaces after the scheme",
      "Authorization: Bearer   abcd-1234",
      "Authorization: Bearer   [REDACTED:authorization]",
    ],
    [
      "a proxy header",
      "Proxy-Authorization: Basic dXNlcjpwYXNz",
      "Proxy-Authorization: Basic [REDACTED:authorization]",
    ],
  ])(
    "masks the credential of an Authorization header with %s, keeping its scheme",
    (_, text, expected) => {
      expect(redact(text)).toBe(expected);
    },
  );

  it("masks a bearer token after several spaces", () => {
    expect(redact("Bearer \t abcdefghij")).toBe("Bearer \t [REDACTED:bearer-token]");
  });

  it.each([
    "apikey",
    "api_key",
    "api-key",
    "accesskey",
    "access_key",
    "privatekey",
    "private_key",
    "private-key",
    "credential",
    "credentials",
  ])("masks the value of a %s field", (field) => {
    expect(redact(`${field}: abcd1234`)).toBe(`${field}: [REDACTED:secret-field]`);
    expect(redact(`{"${field}":"abcd1234"}`)).toBe(`{"${field}":"[REDACTED:secret-field]"}`);
  });

  it("masks a field whose value merely starts with a marker", () => {
    const withSecret = createRedactor({ env: {}, secrets: ["s3cr3t-part"] });
    expect(withSecret("password=s3cr3t-part-and-more")).toBe("password=[REDACTED:secret-field]");
    expect(redact("token=[REDACTED:env]tail")).toBe("token=[REDACTED:secret-field]");
  });

  it('keeps the word "undefined" when there are no literal secrets', () => {
    expect(redact("undefined token=abcd1234")).toBe("undefined token=[REDACTED:secret-field]");
  });
});

describe("environment values", () => {
  it("skips variables whose value is undefined", () => {
    const env = { UNSET_TOKEN: undefined, API_TOKEN: "value-123456" };
    expect(createRedactor({ env })("value-123456")).toBe("[REDACTED:env]");
    expect(redactorForEnvironment(env)("value-123456")).toBe("[REDACTED:env]");
  });

  it("masks a secret-looking value of exactly six characters, not one of five", () => {
    const env = { API_TOKEN: "12345", SESSION_KEY: "123456" };
    expect(redactorForEnvironment(env)("12345 and 123456")).toBe("12345 and [REDACTED:env]");
  });

  it("reuses the compiled redactor when only a value too short to mask changes", () => {
    const first = redactorForEnvironment({ A_TOKEN: "value-one-111", PIN_CODE_KEY: "1234" });
    expect(redactorForEnvironment({ A_TOKEN: "value-one-111", PIN_CODE_KEY: "9876" })).toBe(first);
    expect(redactorForEnvironment({ A_TOKEN: "value-one-111", PIN_CODE_KEY: undefined })).toBe(
      first,
    );
  });
});

describe("the prefilter", () => {
  /** A pattern that counts how often a text is scanned with it. */
  class CountingPattern extends RegExp {
    scans = 0;
    override [Symbol.replace](text: string, replacer: never): string {
      this.scans += 1;
      return super[Symbol.replace](text, replacer);
    }
  }

  it("does not scan a text pattern by pattern when no shape could match it", () => {
    const patterns = DEFAULT_SECRET_PATTERNS.map(({ name, pattern }) => ({
      name,
      pattern: new CountingPattern(pattern),
    }));
    const redact = createRedactor({ env: {}, secrets: ["lit-secret-1"], patterns });
    const scans = () => patterns.reduce((sum, { pattern }) => sum + pattern.scans, 0);
    expect(redact("读取 README.md 成功，共 42 行")).toBe("读取 README.md 成功，共 42 行");
    expect(scans()).toBe(0);
    expect(redact("lit-secret-1 and AKIAIOSFODNN7EXAMPLE")).toBe(
      "[REDACTED:env] and [REDACTED:aws-access-key]",
    );
    expect(scans()).toBe(patterns.length);
  });

  it("is left out when any one pattern has a flag it cannot combine", () => {
    const custom = createRedactor({
      env: {},
      patterns: [
        { name: "ticket", pattern: /\bTICKET-\d+/g },
        { name: "line", pattern: /^secret line$/gm },
      ],
    });
    // Combined without its `m`, `^secret line$` would match no line of this text.
    expect(custom("a\nsecret line\nb")).toBe("a\n[REDACTED:line]\nb");
    expect(custom("TICKET-7\nsecret line")).toBe("[REDACTED:ticket]\n[REDACTED:line]");
  });
});

describe("how redactorForEnvironment notices a change", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const masks = (env: Record<string, string | undefined>, text: string) =>
    redactorForEnvironment(env)(text) !== text;

  it("tests no name and builds nothing while the names and secret values stay the same", () => {
    const env = { UNCHANGED_TOKEN: "value-same-777", HOME: "/home/ann", SHORT_KEY: "123" };
    const first = redactorForEnvironment(env);
    const test = vi.spyOn(SECRET_ENV_NAME, "test");
    // A fresh object with the same names and values: only the comparison runs.
    expect(redactorForEnvironment({ ...env, HOME: "/home/bob" })).toBe(first);
    expect(test).not.toHaveBeenCalled();
    redactorForEnvironment({ ...env, EXTRA: "1" });
    expect(test, "a new name is tested").toHaveBeenCalled();
  });

  it("masks a secret value rotated under the same names", () => {
    redactorForEnvironment({ ROTATED_TOKEN: "value-old-1111", HOME: "/h" });
    const env = { ROTATED_TOKEN: "value-new-2222", HOME: "/h" };
    expect(redactorForEnvironment(env)("value-new-2222 value-old-1111")).toBe(
      "[REDACTED:env] value-old-1111",
    );
  });

  it("masks a secret-looking variable whose value grew long enough to mask", () => {
    redactorForEnvironment({ GROWN_TOKEN: "12345", HOME: "/h" });
    expect(masks({ GROWN_TOKEN: "123456789", HOME: "/h" }, "123456789")).toBe(true);
    redactorForEnvironment({ UNSET_TOKEN: undefined, HOME: "/h" });
    expect(masks({ UNSET_TOKEN: "now-set-3333", HOME: "/h" }, "now-set-3333")).toBe(true);
  });

  it("masks a secret under a new name even when the number of names stays the same", () => {
    redactorForEnvironment({ PLAIN_NAME: "value-4444-abc", HOME: "/h" });
    expect(masks({ RENAMED_TOKEN: "value-4444-abc", HOME: "/h" }, "value-4444-abc")).toBe(true);
    // Renamed as the last name too: every position is compared, not only the first.
    redactorForEnvironment({ HOME: "/h", PLAIN_NAME: "value-5555-abc" });
    expect(masks({ HOME: "/h", RENAMED_TOKEN: "value-5555-abc" }, "value-5555-abc")).toBe(true);
  });

  it("masks a secret added with one more name, and forgets one that was removed", () => {
    redactorForEnvironment({ HOME: "/h" });
    expect(masks({ HOME: "/h", ADDED_TOKEN: "value-6666-abc" }, "value-6666-abc")).toBe(true);
    expect(masks({ HOME: "/h" }, "value-6666-abc")).toBe(false);
  });

  it("keeps the compiled redactor when only the order of the names or a short value changed", () => {
    const first = redactorForEnvironment({
      ORDER_TOKEN: "value-7777-abc",
      HOME: "/h",
      PIN_KEY: "1",
    });
    expect(
      redactorForEnvironment({ HOME: "/h", PIN_KEY: "1", ORDER_TOKEN: "value-7777-abc" }),
    ).toBe(first);
    expect(
      redactorForEnvironment({ HOME: "/h", PIN_KEY: "2", ORDER_TOKEN: "value-7777-abc" }),
    ).toBe(first);
  });

  it("also reads a non-enumerable name of an object it is given (more masked, never less)", () => {
    const env = { HOME: "/h" };
    Object.defineProperty(env, "HIDDEN_TOKEN", { value: "value-8888-abc", enumerable: false });
    expect(masks(env, "value-8888-abc")).toBe(true);
  });
});
