import { invalidArgument } from "../errors.js";

interface ObjectFrame {
  kind: "object";
  parent: Frame | undefined;
  keys: Set<string>;
  /** The key whose value comes next (or came last). */
  key: string | undefined;
  expectingKey: boolean;
}
interface ArrayFrame {
  kind: "array";
  parent: Frame | undefined;
  index: number;
}
type Frame = ObjectFrame | ArrayFrame;

/** The path of a frame's current member, as the other body checks name fields: `a.b[2].c`. Built only to report. */
function pathOf(frame: Frame | undefined): string {
  const parts: string[] = [];
  for (let f = frame; f; f = f.parent) parts.push(f.kind === "object" ? `.${f.key}` : `[${f.index}]`);
  return parts.reverse().join("").replace(/^\./, "");
}

/**
 * Refuses a JSON text in which an object holds the same key twice (after unescaping: `"a"` and `"\u0061"`
 * are one key). JSON.parse keeps the last, so a body with duplicates can show one value to a reader of the
 * raw bytes (an approver checking the signed message) and act on another.
 *
 * Call it on text JSON.parse has already accepted: it trusts the syntax and only tracks where keys are.
 * One pass, each character looked at once and each key decoded once, so the cost is linear in the text.
 */
export function checkDuplicateKeys(text: string): void {
  let top: Frame | undefined;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      top = { kind: "object", parent: top, keys: new Set(), key: undefined, expectingKey: true };
      i++;
    } else if (c === 0x5b /* [ */) {
      top = { kind: "array", parent: top, index: 0 };
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      top = top?.parent;
      i++;
    } else if (c === 0x2c /* , */) {
      if (top?.kind === "object") top.expectingKey = true;
      else if (top?.kind === "array") top.index++;
      i++;
    } else if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      i++;
      while (i < length) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i += 2;
        } else if (d === 0x22) {
          break;
        } else {
          i++;
        }
      }
      i++;
      if (top?.kind === "object" && top.expectingKey) {
        const raw = text.slice(start + 1, i - 1);
        const key = escaped ? (JSON.parse(text.slice(start, i)) as string) : raw;
        top.expectingKey = false;
        top.key = key;
        if (top.keys.has(key)) {
          const path = pathOf(top);
          throw invalidArgument(`${path}: duplicate key ${JSON.stringify(key)} in the request body`, [
            { field: path, description: "the key appears more than once in its object" },
          ]);
        }
        top.keys.add(key);
      }
    } else {
      i++; // whitespace, ':', and the characters of numbers, true, false and null
    }
  }
}
