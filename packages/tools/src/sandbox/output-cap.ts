/**
 * Captures a stream's bytes within a fixed budget: the first half of the budget
 * (where a command says what it is doing) and the last half (where it says how it
 * ended), counting what was dropped between them. Memory stays bounded however much
 * a command prints.
 */
export interface OutputCap {
  push(chunk: Buffer): void;
  /** The kept text, with a marker saying how many bytes were dropped, if any. */
  text(): string;
  readonly droppedBytes: number;
}

/** Creates an output cap keeping at most `maxBytes` bytes (half head, half tail). */
export function createOutputCap(maxBytes: number): OutputCap {
  const headLimit = Math.ceil(maxBytes / 2);
  const tailLimit = maxBytes - headLimit;
  const head: Buffer[] = [];
  let headBytes = 0;
  let tail: Buffer[] = [];
  let tailBytes = 0;
  let dropped = 0;
  return {
    push(chunk) {
      let rest = chunk;
      if (headBytes < headLimit) {
        const part = rest.subarray(0, headLimit - headBytes);
        head.push(Buffer.from(part));
        headBytes += part.length;
        rest = rest.subarray(part.length);
      }
      if (rest.length === 0) return;
      tail.push(Buffer.from(rest));
      tailBytes += rest.length;
      // Drop from the front of the tail once it is over budget.
      if (tailBytes > tailLimit) {
        const joined = Buffer.concat(tail);
        const excess = joined.length - tailLimit;
        dropped += excess;
        tail = [joined.subarray(excess)];
        tailBytes = tailLimit;
      }
    },
    text() {
      const headText = Buffer.concat(head).toString("utf8");
      const tailText = Buffer.concat(tail).toString("utf8");
      if (dropped === 0) return headText + tailText;
      return `${headText}\n[… 省略 ${dropped} 字节 …]\n${tailText}`;
    },
    get droppedBytes() {
      return dropped;
    },
  };
}
