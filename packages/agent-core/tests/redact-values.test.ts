/**
 * Redaction that masks secrets and nothing else (issue: redaction corrupted what the model
 * saw). Applied to values, never to serialized JSON; never across a line; the observation
 * stays valid JSON; code that names a secret is left as written; a short or common key
 * value never masks parts of other words. Both sides measured: the secret corpus stays
 * fully masked, a corpus of real config and source files comes through byte-identical.
 */
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRedactor, redactJson } from "../src/redact.ts";
import { serializeObservation } from "../src/serialize.ts";
import { POSITIVES } from "./fixtures/secret-corpus.ts";
import { SOURCE_CORPUS } from "./fixtures/source-corpus.ts";

const redact = createRedactor({ env: {} });
/** What the model sees of a read_file result. */
const observed = (content: string, with_ = redact) =>
  serializeObservation({ content, hash: "h", totalLines: 2, truncated: false }, { redact: with_ });

describe("an observation of a file with a secret", () => {
  it("stays valid JSON, and the next line keeps its first word", () => {
    const { text } = observed("API_KEY=abc123secretvalue\nnext line is normal text\n");
    const parsed = JSON.parse(text);
    expect(parsed.content).toBe("API_KEY=[REDACTED:secret-field]\nnext line is normal text\n");
  });

  it("keeps every line of deploy notes but the secret's value", () => {
    const notes =
      "password: hunter22secret\n\nStep 2: restart the service\nStep 3: check the logs\n";
    const parsed = JSON.parse(observed(notes).text);
    expect(parsed.content).toBe(
      "password: [REDACTED:secret-field]\n\nStep 2: restart the service\nStep 3: check the logs\n",
    );
  });

  it("masks a value under a secret-looking key of a tool's JSON, by its key", () => {
    const parsed = JSON.parse(
      serializeObservation({ user: "ann", password: "hunter22" }, { redact }).text,
    );
    expect(parsed).toEqual({ user: "ann", password: "[REDACTED:secret-field]" });
  });
});

describe("never across a line", () => {
  it.each([
    "API_TOKEN=\nnext_value_here",
    "password:\n  plain words follow",
    "Authorization:\nBearer-less text here",
    "AKIAIOSFODNN7EXAMPLE\nwJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  ])("takes no value from the next line: %j", (text) => {
    const [, second] = redact(text).split("\n");
    expect(second).toBe(text.split("\n")[1]);
  });

  it("does not cross an escaped newline of JSON text", () => {
    const json = JSON.stringify("API_KEY=abc123secretvalue\nnext line");
    expect(redact(json)).toBe(JSON.stringify("API_KEY=[REDACTED:secret-field]\nnext line"));
  });
});

describe("code that names a secret", () => {
  it.each([
    "apiKey: process.env.API_KEY",
    "apiKey: config.apiKey,",
    "const token = getToken();",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "password: string;",
    "token: Optional[str] = None",
    "client = Client(api_key=api_key)",
    `GITHUB_TOKEN: \${{ secrets.GITHUB_TOKEN }}`,
    'curl -H "Authorization: Bearer $TOKEN"',
    'let token = std::env::var("TOKEN")?;',
  ])("is left as written: %s", (line) => {
    expect(redact(line)).toBe(line);
  });

  it("still masks a literal value on the same kind of line", () => {
    expect(redact("apiKey: abc123secretvalue,")).toBe("apiKey: [REDACTED:secret-field],");
    expect(
      redact("token: ya29.a0AfH6SMBxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-yyyyyyyyyyyyyy"),
    ).toBe("token: [REDACTED:secret-field]");
  });
});

describe("short and common key values", () => {
  it.each(["x", "ollama", "test", "dummy"])(
    "%s as OPENAI_API_KEY masks no part of any word, nor a JSON key",
    (value) => {
      const withKey = createRedactor({ env: { OPENAI_API_KEY: value }, secrets: [value] });
      for (const text of ["maxSteps", `用 ${value} 说你好`, "test the latest ollama build"])
        expect(withKey(text)).toBe(text);
      const options = { maxSteps: 8, maxToolCalls: 20, goal: `用 ${value} 说你好` };
      expect(redactJson(withKey, options)).toEqual(options);
    },
  );

  it("masks a mid-length key only as a whole word, a long one anywhere", () => {
    const withKey = createRedactor({ env: {}, secrets: ["abcd1234ef", "0123456789abcdefXYZ"] });
    expect(withKey("key abcd1234ef here")).toBe("key [REDACTED:env] here");
    expect(withKey("xxabcd1234efyy")).toBe("xxabcd1234efyy");
    expect(withKey("glued0123456789abcdefXYZglued")).toBe("glued[REDACTED:env]glued");
  });
});

describe("a private key read from any line", () => {
  const pem = (format: "pkcs8" | "pkcs1") =>
    generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: format, format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
  const { privateKey, publicKey } = pem("pkcs8");
  const lines = privateKey.trimEnd().split("\n");
  const body = lines.slice(1, -1);
  /** The body lines of the key that come through `text` unmasked. */
  const leaked = (text: string) => body.filter((line) => redact(text).includes(line));

  it("masks a page from its middle, with neither its BEGIN nor its END line", () => {
    const page = lines.slice(5, 15).join("\n");
    expect(leaked(page)).toEqual([]);
    // As read_file hands it to the model: the page inside an observation.
    expect(leaked(JSON.parse(observed(page).text).content)).toEqual([]);
    expect(JSON.parse(observed(page).text).content).toContain("[REDACTED:private-key]");
  });

  it("masks its last lines with the END line, as tail prints them", () => {
    expect(leaked(lines.slice(-4).join("\n"))).toEqual([]);
    expect(leaked(`tail:\n${lines.slice(-12).join("\n")}\n`)).toEqual([]);
  });

  it("masks the body of a PKCS#1 RSA key page by page", () => {
    const pkcs1 = pem("pkcs1").privateKey.trimEnd().split("\n");
    for (let start = 1; start < pkcs1.length - 1; start += 8) {
      const page = pkcs1.slice(start, start + 8).join("\n");
      const shown = redact(page);
      for (const line of pkcs1.slice(start, start + 8).filter((l) => !l.startsWith("-----"))) {
        if (line.length >= 16) expect(shown, `page from line ${start}`).not.toContain(line);
      }
    }
  });

  it("leaves a public key and a certificate read from their BEGIN line, and a column of hashes, as written", () => {
    const hashes = "0123456789abcdef".repeat(4);
    for (const text of [
      publicKey,
      `keys:\n${publicKey}`,
      `${hashes}\n${hashes.split("").reverse().join("")}\n${hashes}\n`,
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe("both sides, measured", () => {
  it("masks the whole secret corpus and leaves every real source file byte-identical", () => {
    const missed = POSITIVES.filter(({ text, secret }) => redact(text).includes(secret));
    const altered = SOURCE_CORPUS.filter(({ text }) => {
      const seen = JSON.parse(observed(text).text).content;
      return redact(text) !== text || seen !== text;
    });
    console.log(
      `redaction: ${POSITIVES.length - missed.length}/${POSITIVES.length} secrets masked, ` +
        `${altered.length}/${SOURCE_CORPUS.length} source files altered`,
    );
    expect({
      missed: missed.map(({ name }) => name),
      altered: altered.map(({ name, text }) => `${name}:\n${redact(text)}`),
    }).toEqual({ missed: [], altered: [] });
  });
});
