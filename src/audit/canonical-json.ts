/** A JSON value an audit entry may hold: integers only among numbers, so the canonical form has one spelling. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue | undefined };

/**
 * The canonical JSON of `value` (RFC 8785, JCS, for this value domain): object keys sorted by UTF-16 code units,
 * no whitespace, strings as ECMAScript serializes them, integers in decimal; undefined members left out.
 * An audit entry's leaf hash is over exactly these bytes, so any rewriting of an entry changes its hash.
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`audit entries hold integers only, not ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const members = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`);
  return `{${members.join(",")}}`;
}
