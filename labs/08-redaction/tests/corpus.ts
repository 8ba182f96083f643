/**
 * The redaction corpus: texts with a secret that must be masked (with the kind the
 * marker must name), and texts that look technical but hold no secret.
 * The values are fakes shaped like the real ones; none of them works anywhere.
 */
export interface SecretCase {
  readonly name: string;
  readonly text: string;
  readonly secret: string;
  readonly kind: string;
}

const openai = `sk-${"A1b2C3d4".repeat(6)}`;
const openaiProject = `sk-proj-${"Zx9_Yw8-".repeat(8)}`;
const anthropic = `sk-ant-api03-${"Qr7sT6uV".repeat(10)}`;
const ghp = `ghp_${"a1B2c3D4e5".repeat(3)}F6g7H8`;
const githubPat = `github_pat_11ABCDEFG0${"x9Y8z7W6v5".repeat(6)}`;
const awsAccess = "AKIAIOSFODNN7EXAMPLE";
const awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const slack = ["xoxb", "1234567890", "0987654321", "AbCdEfGhIjKlMnOpQrStUvWx"].join("-");
const jwt =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const pem = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB",
  "aFDrBz9vFqU4yEXAMPLEONLYnotarealkeyatall0000000000000000000000000",
  "-----END RSA PRIVATE KEY-----",
].join("\n");

export const SECRETS: readonly SecretCase[] = [
  { name: "OpenAI key", text: `OPENAI=${openai}`, secret: openai, kind: "openai-key" },
  {
    name: "OpenAI project key",
    text: `key: ${openaiProject}`,
    secret: openaiProject,
    kind: "openai-key",
  },
  {
    name: "Anthropic key",
    text: `{"key":"${anthropic}"}`,
    secret: anthropic,
    kind: "anthropic-key",
  },
  { name: "GitHub classic token", text: `token ${ghp} ok`, secret: ghp, kind: "github-token" },
  {
    name: "GitHub fine-grained token",
    text: `GH=${githubPat}`,
    secret: githubPat,
    kind: "github-token",
  },
  {
    name: "AWS access key id",
    text: `aws_access_key_id = ${awsAccess}`,
    secret: awsAccess,
    kind: "aws-access-key",
  },
  {
    name: "AWS secret key next to its name",
    text: `aws_secret_access_key = ${awsSecret}`,
    secret: awsSecret,
    kind: "aws-secret-key",
  },
  { name: "Slack bot token", text: `SLACK ${slack}`, secret: slack, kind: "slack-token" },
  { name: "JWT", text: `cookie: session=${jwt}; Path=/`, secret: jwt, kind: "jwt" },
  {
    name: "PEM private key",
    text: `key file:\n${pem}\n`,
    secret: "MIIEowIBAAKCAQEA",
    kind: "private-key",
  },
  {
    name: "password in a URL",
    text: "DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/app",
    secret: "s3cr3t-Pa55",
    kind: "url-credentials",
  },
  {
    name: "Authorization header",
    text: "Authorization: Bearer abc.DEF-ghi_jkl~123",
    secret: "abc.DEF-ghi_jkl~123",
    kind: "authorization",
  },
  {
    name: "Authorization header, basic",
    text: "authorization: Basic dXNlcjpwYXNzd29yZA==",
    secret: "dXNlcjpwYXNzd29yZA==",
    kind: "authorization",
  },
];

/** Texts that must come out exactly as they went in. */
export const NOT_SECRETS: readonly { readonly name: string; readonly text: string }[] = [
  { name: "a git commit SHA", text: "commit 3f786850e387550fdab836ed7e6dc881de23001b" },
  { name: "a UUID", text: "request id 123e4567-e89b-12d3-a456-426614174000" },
  {
    name: "a SHA-256 digest",
    text: "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  },
  { name: "short base64", text: "data: aGVsbG8gd29ybGQ=" },
  { name: "a word that starts with sk-", text: "use the sk-learn style API" },
  { name: "an ordinary URL", text: "see https://example.com/docs/api-key-rotation" },
  { name: "token counts", text: '{"inputTokens":120,"outputTokens":30}' },
  { name: "a prose mention of Authorization", text: "Authorization is checked per request." },
];
