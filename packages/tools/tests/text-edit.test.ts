import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineEndingStyle, replaceExactlyOnce } from "../src/edits/text-edit.ts";

describe("replaceExactlyOnce", () => {
  it("replaces text that occurs once and reports its line", () => {
    expect(replaceExactlyOnce("a\nb + c\nd\n", "b + c", "b - c")).toEqual({
      ok: true,
      text: "a\nb - c\nd\n",
      line: 2,
    });
  });

  it("answers not_found_text when the text is absent (case and spacing count)", () => {
    expect(replaceExactlyOnce("const a = 1;\n", "const a=1;", "x")).toEqual({
      ok: false,
      reason: "not_found_text",
    });
    expect(replaceExactlyOnce("Hello\n", "hello", "x")).toMatchObject({ reason: "not_found_text" });
  });

  it("answers not_unique with the line of every match", () => {
    expect(replaceExactlyOnce("x = 1\ny = 2\nx = 1\n\nx = 1\n", "x = 1", "x = 3")).toEqual({
      ok: false,
      reason: "not_unique",
      lines: [1, 3, 5],
    });
  });

  it("counts overlapping matches as several: `aa` in `aaa` is ambiguous", () => {
    expect(replaceExactlyOnce("aaa\n", "aa", "b")).toEqual({
      ok: false,
      reason: "not_unique",
      lines: [1, 1],
    });
  });

  it("edits a CRLF file with LF text and writes CRLF back", () => {
    const outcome = replaceExactlyOnce("one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3\n4");
    expect(outcome).toEqual({ ok: true, text: "one\r\n2\r\n3\r\n4\r\n", line: 2 });
  });

  it("matches CRLF text sent for an LF file", () => {
    expect(replaceExactlyOnce("one\ntwo\n", "one\r\ntwo", "1\r\n2")).toEqual({
      ok: true,
      text: "1\n2\n",
      line: 1,
    });
  });

  it("matches a file mixing CRLF and LF byte for byte and leaves its other lines alone", () => {
    const text = "a\r\nb\nc\r\n";
    expect(replaceExactlyOnce(text, "b", "B")).toEqual({
      ok: true,
      text: "a\r\nB\nc\r\n",
      line: 2,
    });
  });

  it("keeps the final newline the file had, and does not add one it lacked", () => {
    expect(replaceExactlyOnce("a\nlast\n", "last\n", "end")).toMatchObject({ text: "a\nend\n" });
    expect(replaceExactlyOnce("a\nlast", "last", "end\n")).toMatchObject({ text: "a\nend" });
    expect(replaceExactlyOnce("a\r\nlast\r\n", "last\r\n", "end")).toMatchObject({
      text: "a\r\nend\r\n",
    });
  });

  it("tells line endings apart", () => {
    expect(lineEndingStyle("a\nb")).toBe("lf");
    expect(lineEndingStyle("no break")).toBe("lf");
    expect(lineEndingStyle("a\r\nb\r\n")).toBe("crlf");
    expect(lineEndingStyle("a\r\nb\n")).toBe("mixed");
  });
});

/** Text made of lines that never contain the marker, joined by one line-ending style. */
const markerFree = fc.array(fc.stringMatching(/^[a-z =;]{0,12}$/), { maxLength: 6 });

describe("replaceExactlyOnce (property)", () => {
  it("changes only the marked text: the rest of the file is byte-identical, in either line-ending style", () => {
    fc.assert(
      fc.property(
        markerFree,
        markerFree,
        fc.constantFrom("\n", "\r\n"),
        fc.stringMatching(/^[A-Z]{0,8}$/),
        (head, tail, eol, replacement) => {
          const prefix = head.map((line) => `${line}${eol}`).join("");
          const suffix = tail.map((line) => `${line}${eol}`).join("");
          const outcome = replaceExactlyOnce(`${prefix}@@MARK@@${suffix}`, "@@MARK@@", replacement);
          expect(outcome).toEqual({
            ok: true,
            text: `${prefix}${replacement}${suffix}`,
            line: head.length + 1,
          });
        },
      ),
    );
  });

  it("keeps whether the file ends with a newline, whatever the edit", () => {
    const text = fc.stringMatching(/^[ab\n]{0,10}$/);
    fc.assert(
      fc.property(text, text, fc.stringMatching(/^[xy\n]{0,4}$/), (prefix, suffix, insert) => {
        const before = `${prefix}@@MARK@@${suffix}`;
        const outcome = replaceExactlyOnce(before, "@@MARK@@", insert);
        if (!outcome.ok) throw new Error(`expected an edit of ${JSON.stringify(before)}`);
        // Replacing the whole last line with nothing leaves the line before it last.
        const removesLastLine = suffix === "" && insert.replaceAll("\n", "") === "";
        if (!removesLastLine && outcome.text !== "")
          expect(outcome.text.endsWith("\n")).toBe(before.endsWith("\n"));
      }),
    );
  });

  it("never edits when the text occurs more than once", () => {
    fc.assert(
      fc.property(markerFree, fc.integer({ min: 2, max: 5 }), (lines, copies) => {
        const text = [...lines, ...Array.from({ length: copies }, () => "@@MARK@@")].join("\n");
        const outcome = replaceExactlyOnce(text, "@@MARK@@", "x");
        expect(outcome).toMatchObject({ ok: false, reason: "not_unique" });
        if (!outcome.ok && outcome.reason === "not_unique")
          expect(outcome.lines).toHaveLength(copies);
      }),
    );
  });
});
