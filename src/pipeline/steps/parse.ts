import { createHash } from "node:crypto";
import { invalidArgument } from "../../errors.js";
import { checkDuplicateKeys } from "../../schema/duplicate-keys.js";
import { checkJsonLimits } from "../../schema/json-limits.js";

export type RequestHeaders = Record<string, string | string[] | undefined>;

/** A signed request as it arrived: the raw body (what the stamp signs), its headers, and who sent it. */
export interface SignedRequest {
  headers: RequestHeaders;
  rawBody: Buffer;
  clientIp?: string;
  /** Logs a failure the caller is not told about (a handler's bug, an after-commit task). */
  onError: (error: unknown) => void;
}

/** The body parsed, with the organization it names and its fingerprint (what idempotency and votes refer to). */
export interface ParsedRequest {
  body: Record<string, unknown>;
  organizationId: string;
  fingerprint: string;
}

export function fingerprintOf(rawBody: Buffer): string {
  return `sha256:${createHash("sha256").update(rawBody).digest("hex")}`;
}

/** Parses the body as a JSON object, or fails with 400 naming the problem (bad JSON, NUL, too deep, a duplicate key). */
export function parseJsonBody(rawBody: Buffer): Record<string, unknown> {
  const text = rawBody.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidArgument("request body must be a JSON object");
  checkJsonLimits(value);
  checkDuplicateKeys(text);
  return value as Record<string, unknown>;
}

export function requireOrganizationId(body: Record<string, unknown>): string {
  const organizationId = body.organizationId;
  if (typeof organizationId !== "string" || organizationId.length === 0) {
    throw invalidArgument("organizationId: required, a non-empty string", "INVALID_ORGANIZATION_ID", [
      { field: "organizationId", description: "required, a non-empty string" },
    ]);
  }
  return organizationId;
}

/** Step "parse": JSON within limits, naming its organization. */
export function parseRequest(rawBody: Buffer): ParsedRequest {
  const body = parseJsonBody(rawBody);
  return { body, organizationId: requireOrganizationId(body), fingerprint: fingerprintOf(rawBody) };
}
