import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { invalidArgument, type FieldViolation } from "../errors.js";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor<S extends TSchema>(schema: S): TypeCheck<S> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<S>;
}

/** "/apiKeys/0/publicKey" under "parameters" becomes "parameters.apiKeys[0].publicKey". */
function fieldName(prefix: string, pointer: string): string {
  let name = prefix;
  for (const segment of pointer.split("/").slice(1)) {
    const part = segment.replace(/~1/g, "/").replace(/~0/g, "~");
    name += /^\d+$/.test(part) ? `[${part}]` : name ? `.${part}` : part;
  }
  return name || "body";
}

/** Enum unions read better as "must be one of …" than TypeBox's "Expected union value". */
function describe(schema: TSchema, message: string): string {
  const options = (schema as { anyOf?: Array<{ const?: unknown }> }).anyOf;
  if (options && options.length > 0 && options.every((o) => typeof o.const === "string")) {
    return `must be one of ${options.map((o) => o.const as string).join(", ")}`;
  }
  return message;
}

/**
 * Checks `value` against `schema`; on failure throws 400 (gRPC 3) naming every offending field.
 * Unknown fields are allowed: the SDKs send some (e.g. generateAppProofs inside parameters).
 */
export function validate<S extends TSchema>(schema: S, value: unknown, prefix: string): Static<S> {
  const check = checkerFor(schema);
  if (check.Check(value)) return value;
  const violations: FieldViolation[] = [];
  const seen = new Set<string>();
  for (const error of check.Errors(value)) {
    const field = fieldName(prefix, error.path);
    if (seen.has(field)) continue;
    seen.add(field);
    violations.push({ field, description: describe(error.schema, error.message) });
    if (violations.length >= 10) break;
  }
  const summary = violations.map((v) => `${v.field}: ${v.description}`).join("; ");
  throw invalidArgument(`invalid request: ${summary}`, violations);
}
