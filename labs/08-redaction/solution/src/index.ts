export {
  createRedactor,
  MIN_SECRET_LENGTH,
  type Redactor,
  type RedactorOptions,
  SECRET_ENV_NAME,
  SECRET_PATTERNS,
  type SecretPattern,
  secretValues,
} from "./redact.ts";
