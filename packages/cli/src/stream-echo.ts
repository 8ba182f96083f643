import type { Provider, Redactor } from "@coding-agent/agent-core";

/**
 * Shows a real model's reply on stderr as it streams in (only on a terminal: the CLI wires it
 * so, and `--json` output never changes): its reasoning dimmed, then its text. A secret may
 * arrive split over two pieces, so pieces are never masked one by one: each time, the whole
 * segment so far is redacted, and what extends what is already shown is written — up to the
 * last character that cannot be part of a secret token (letters, digits and `_-./+=:~` are
 * held back until something else follows them). A reply in Chinese or prose shows as it
 * comes; only a word still being written waits. Should a later redaction change what is
 * already on screen (a secret spanning a space), nothing more of that segment is shown.
 */
export interface TextEcho {
  /** A piece of the reply's text (`ProviderOptions.onText`). */
  readonly onText: (text: string) => void;
  /** A piece of the reply's reasoning (`ProviderOptions.onReasoning`). */
  readonly onReasoning: (text: string) => void;
  /** The reply ended (answered or failed): the rest is shown, and a line break. */
  readonly end: () => void;
}

/** Characters a key or token is made of: a piece ending in them may continue one. */
const TOKEN_CHAR = /[A-Za-z0-9_\-./+=:~]/;

/** Dim on, dim off (SGR 2 / 22): reasoning is shown fainter than the reply. */
const DIM = "\u001b[2m";
const UNDIM = "\u001b[22m";

type Kind = "text" | "reasoning";

export function createTextEcho(write: (text: string) => void, redact: Redactor): TextEcho {
  let kind: Kind | undefined;
  let raw = "";
  let shown = "";
  /** Set when the redaction changed what was already shown: nothing more is shown then. */
  let diverged = false;
  const put = (text: string) => write(kind === "reasoning" ? `${DIM}${text}${UNDIM}` : text);
  const showUpTo = (text: string) => {
    if (diverged) return;
    const masked = redact(text);
    if (!masked.startsWith(shown)) {
      diverged = true;
      return;
    }
    const fresh = masked.slice(shown.length);
    if (fresh !== "") put(fresh);
    shown = masked;
  };
  const close = () => {
    if (kind === undefined) return;
    if (raw !== "") showUpTo(raw);
    if (shown !== "" && !shown.endsWith("\n")) write("\n");
    kind = undefined;
    raw = "";
    shown = "";
    diverged = false;
  };
  const add = (next: Kind, piece: string) => {
    if (kind !== next) close();
    kind = next;
    raw += piece;
    let safe = raw.length;
    while (safe > 0 && TOKEN_CHAR.test(raw.charAt(safe - 1))) safe -= 1;
    if (safe > 0) showUpTo(raw.slice(0, safe));
  };
  return {
    onText: (text) => add("text", text),
    onReasoning: (text) => add("reasoning", text),
    end: close,
  };
}

/** A provider whose every call ends the echo of its reply, however the call ends. */
export function endingEcho(provider: Provider, echo: TextEcho): Provider {
  return {
    async complete(request, signal) {
      try {
        return await provider.complete(request, signal);
      } finally {
        echo.end();
      }
    },
  };
}
