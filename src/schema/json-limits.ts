import { invalidArgument } from "../errors.js";

/** Deeper than any request of the API needs (the deepest, create_sub_organization, is under 10). */
export const MAX_JSON_DEPTH = 32;

/**
 * Refuses what PostgreSQL cannot store and what recursive code should never see: strings (keys or
 * values) holding U+0000, which neither `text` nor `jsonb` accepts, and nesting deeper than
 * MAX_JSON_DEPTH. Walks with an explicit stack, so a hostile body cannot exhaust the call stack here.
 */
export function checkJsonLimits(value: unknown): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: "", depth: 0 }];
  const named = (path: string) => path || "request body";
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === "string") {
      if (current.includes("\u0000"))
        throw invalidArgument(`${named(path)}: must not contain the NUL character (U+0000)`, [
          { field: named(path), description: "must not contain U+0000" },
        ]);
      continue;
    }
    if (typeof current !== "object" || current === null) continue;
    if (depth >= MAX_JSON_DEPTH)
      throw invalidArgument(`${named(path)}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, [
        { field: named(path), description: `nested deeper than ${MAX_JSON_DEPTH} levels` },
      ]);
    if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push({ value: item, path: `${path}[${index}]`, depth: depth + 1 }));
    } else {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes("\u0000"))
          throw invalidArgument(`${named(path)}: a key must not contain the NUL character (U+0000)`, [
            { field: named(path), description: "a key contains U+0000" },
          ]);
        stack.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
      }
    }
  }
}
