/** 一种密钥的形状：标记里用的名字，以及一个全局正则，其第 1 组被保留。 */
export interface SecretPattern {
  readonly name: string;
  /** 全局匹配。第 1 组是保留在密钥前面的上下文（可以为空）。 */
  readonly pattern: RegExp;
}

/**
 * 默认遮蔽的形状，越具体的越靠前（`sk-ant-` 在 `sk-` 之前）。每一种都锚定在前缀或值旁边的名字上，所
 * 以普通的十六进制（git SHA、哈希）、UUID 和短 base64 不受影响。
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private-key",
    pattern:
      /()-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g,
  },
  { name: "anthropic-key", pattern: /()\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "openai-key", pattern: /()\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  {
    name: "github-token",
    pattern: /()\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,})/g,
  },
  { name: "aws-access-key", pattern: /()\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  {
    name: "aws-secret-key",
    // 单独 40 个 base64 字符可能是任何东西（git SHA 就是 40 个十六进制字符）：只有旁边的名字才让它
    // 成为 AWS 密钥。
    pattern:
      /(\baws_?secret_?access_?key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
  },
  { name: "slack-token", pattern: /()\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "jwt", pattern: /()\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g },
  { name: "url-credentials", pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/gi },
  {
    name: "authorization",
    pattern: /(\bAuthorization["']?\s*[:=]\s*["']?(?:Bearer |Basic |Token )?)[^\s"',;]+/gi,
  },
];

/** 值是密钥的环境变量名（`OPENAI_API_KEY`、`DB_PASSWORD`……）。 */
export const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;

/** 更短的值不遮蔽：否则 `AUTH_MODE=on` 会把每一个 "on" 都遮掉。 */
export const MIN_SECRET_LENGTH = 8;

/** `createRedactor` 的选项。 */
export interface RedactorOptions {
  /** 一份环境：其中名字像密钥的变量，按值遮蔽。 */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** 额外要遮蔽的字面值，出现在哪里都遮。 */
  readonly secrets?: readonly string[];
}

/** 把文本里的每个密钥替换成 `[REDACTED:kind]`。 */
export type Redactor = (text: string) => string;

/**
 * 构造一个脱敏器。按名字遮蔽的值（像密钥的环境变量值、额外的密钥）在这里收集一次，长的在前，这样包
 * 含另一个密钥的密钥会被整个遮住。
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const literals = secretValues(options);
  return (text) => {
    // #region exercise
    // 解答：先按值遮蔽（环境变量里的密钥可能是任何形状），再按形状遮蔽；每处都要换掉，不只第一处。
    let out = text;
    for (const value of literals) {
      out = out.replaceAll(value, "[REDACTED:env]");
    }
    for (const { name, pattern } of SECRET_PATTERNS) {
      out = out.replace(pattern, (_match, kept: string) => `${kept}[REDACTED:${name}]`);
    }
    return out;
    // #endregion exercise
  };
}

/** 要遮蔽的字面值：像密钥的环境变量值和额外的密钥，长的在前。 */
export function secretValues(options: RedactorOptions): string[] {
  const values = new Set(options.secrets ?? []);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value !== undefined && SECRET_ENV_NAME.test(name)) values.add(value);
  }
  return [...values]
    .filter((value) => value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
}
