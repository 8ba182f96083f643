import type { Provider, Redactor } from "@coding-agent/agent-core";

/**
 * Shows a real model's reply text on stderr as it streams in (only on a terminal: the CLI
 * wires it so, and `--json` output never changes). A secret may arrive split over two
 * pieces, and some secret shapes span spaces or lines (`Authorization: Bearer …`, a PEM
 * block), so pieces are never masked one by one: the text is shown line by line, each time
 * as the redaction of the whole reply so far up to its last complete line, and only what
 * extends what is already shown is written. The rest of a line comes when the reply ends.
 */
export interface TextEcho {
  /** A piece of the reply's text (`ProviderOptions.onText`). */
  readonly onText: (text: string) => void;
  /** The reply ended (answered or failed): the rest is shown, and a line break. */
  readonly end: () => void;
}

export function createTextEcho(write: (text: string) => void, redact: Redactor): TextEcho {
  let raw = "";
  let shown = "";
  /** Set when the redaction changed what was already shown: nothing more is shown then. */
  let diverged = false;
  const showUpTo = (text: string) => {
    if (diverged) return;
    const masked = redact(text);
    if (!masked.startsWith(shown)) {
      diverged = true;
      return;
    }
    const fresh = masked.slice(shown.length);
    if (fresh !== "") write(fresh);
    shown = masked;
  };
  return {
    onText(text) {
      raw += text;
      if (!text.includes("\n")) return;
      showUpTo(raw.slice(0, raw.lastIndexOf("\n") + 1));
    },
    end() {
      if (raw === "") return;
      showUpTo(raw);
      if (shown !== "" && !shown.endsWith("\n")) write("\n");
      raw = "";
      shown = "";
      diverged = false;
    },
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
