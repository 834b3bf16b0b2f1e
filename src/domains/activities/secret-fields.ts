import type { KeyEncryptionKey } from "../../crypto/key-encryption.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";

/** What a stored activity shows in place of a bearer secret. */
export const REDACTED = "<redacted>";

/** `value` with every string found at `path` (see SecretFields) replaced by REDACTED; the input is not modified. */
function redactPath(value: unknown, steps: string[]): unknown {
  if (steps.length === 0) return typeof value === "string" ? REDACTED : value;
  const [step, ...rest] = steps as [string, ...string[]];
  const list = step.endsWith("[]");
  const key = list ? step.slice(0, -2) : step;
  if (!value || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, key)) return value;
  const field = (value as Record<string, unknown>)[key];
  const redacted = list ? (Array.isArray(field) ? field.map((item) => redactPath(item, rest)) : field) : redactPath(field, rest);
  return { ...(value as Record<string, unknown>), [key]: redacted };
}

function redactPaths<T>(value: T, paths: readonly string[] | undefined): T {
  let redacted: unknown = value;
  for (const path of paths ?? []) redacted = redactPath(redacted, path.split("."));
  return redacted as T;
}

/** Whether any secret path of the intent holds a string in `params`. */
export function holdsIntentSecrets(definition: ActivityDefinition, params: Record<string, unknown>): boolean {
  return JSON.stringify(redactPaths(params, definition.secretFields?.intent)) !== JSON.stringify(params);
}

/** The parameters as they are stored and shown: each bearer secret the definition declares redacted. */
export function redactedIntent(definition: ActivityDefinition, params: Record<string, unknown>): Record<string, unknown> {
  return redactPaths(params, definition.secretFields?.intent);
}

/** The result as it is stored and shown to anyone but the submitter's synchronous answer. */
export function redactedResult(definition: ActivityDefinition, result: Record<string, unknown>): Record<string, unknown> {
  const inner = result[definition.resultKey];
  if (!definition.secretFields?.result || !inner || typeof inner !== "object") return result;
  return { ...result, [definition.resultKey]: redactPaths(inner, definition.secretFields.result) };
}

/**
 * The submission's signed body as its vote records it (the vote's `message`): with the parameters' secrets
 * redacted, so the stored message no longer matches the stamp's signature when it held one. The fingerprint
 * (a hash of the exact body) still names it.
 */
export function redactedRequestBody(definition: ActivityDefinition, body: Record<string, unknown>, rawBody: Buffer): string {
  const parameters = body.parameters;
  if (!definition.secretFields?.intent || !parameters || typeof parameters !== "object") return rawBody.toString("utf8");
  if (!holdsIntentSecrets(definition, parameters as Record<string, unknown>)) return rawBody.toString("utf8");
  return JSON.stringify({ ...body, parameters: redactedIntent(definition, parameters as Record<string, unknown>) });
}

const sealContext = (activityId: string) => `activity-secret-params:${activityId}`;

/** The full parameters of an activity that waits and holds secrets, sealed for its deciding approval. */
export function sealSecretParams(kek: KeyEncryptionKey, activityId: string, params: Record<string, unknown>): string {
  return kek.seal(new TextEncoder().encode(JSON.stringify(params)), sealContext(activityId));
}

export function openSecretParams(kek: KeyEncryptionKey, activityId: string, sealed: string): Record<string, unknown> {
  return JSON.parse(new TextDecoder().decode(kek.open(sealed, sealContext(activityId)))) as Record<string, unknown>;
}
