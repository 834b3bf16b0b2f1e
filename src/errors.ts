import type { FastifyError } from "fastify";
/**
 * Errors in the API's own shape: a gRPC status body `{code, message, details}` sent with the
 * HTTP status the hosted API uses for that gRPC code. Inside an activity the same body becomes
 * the activity's `failure`.
 */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const httpStatusByCode: Record<number, number> = {
  3: 400,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  12: 501,
  13: 500,
  14: 503,
  16: 401,
};

export interface FieldViolation {
  field: string;
  description: string;
}

export interface ErrorBody {
  code: number;
  message: string;
  details: Array<Record<string, unknown>>;
}

export class ApiError extends Error {
  readonly httpStatus: number;
  /** What the hosted API answers for this very error, when that is known more precisely than by its code. */
  hostedWording?: HostedWording;

  constructor(
    readonly code: number,
    message: string,
    readonly turnkeyErrorCode?: ErrorCode,
    readonly fieldViolations: FieldViolation[] = [],
    httpStatus?: number,
  ) {
    super(message);
    this.name = "ApiError";
    this.httpStatus = httpStatus ?? httpStatusByCode[code] ?? 500;
  }

  /** The error a stored failure body describes (an activity's failure, read back). */
  static fromBody(body: ErrorBody): ApiError {
    const rateLimited = RateLimitedError.ofBody(body);
    if (rateLimited) return rateLimited;
    const code = body.details.find((d) => typeof d.turnkeyErrorCode === "string")?.turnkeyErrorCode as ErrorCode | undefined;
    const fields = (body.details.find((d) => Array.isArray(d.fieldViolations))?.fieldViolations ?? []) as FieldViolation[];
    return new ApiError(body.code, body.message, code, fields);
  }

  toBody(): ErrorBody {
    const details: Array<Record<string, unknown>> = [];
    if (this.turnkeyErrorCode) {
      details.push({
        "@type": "type.googleapis.com/errors.v1.TurnkeyErrorDetail",
        turnkeyErrorCode: this.turnkeyErrorCode,
      });
    }
    if (this.fieldViolations.length > 0) {
      details.push({ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: this.fieldViolations });
    }
    return { code: this.code, message: this.message, details };
  }
}

/**
 * The codes Strongroom puts in `details[].turnkeyErrorCode`, by the part of the API that raises them (the
 * hosted API's names). A code outside these sets does not compile.
 */
export const ERROR_CODES = {
  request: ["REQUEST_INVALID", "INVALID_ORGANIZATION_ID", "INVALID_TIME", "INTERNAL", "UNIMPLEMENTED", "RATE_LIMIT_EXCEEDED"],
  authentication: [
    "UNAUTHENTICATED",
    "REQUEST_NOT_AUTHORIZED",
    "SIGNATURE_INVALID",
    "SIGNATURE_MISSING",
    "CREDENTIAL_NOT_FOUND",
    "API_KEY_EXPIRED",
    "SESSION_INVALID",
    "IP_NOT_ALLOWED",
    "INVALID_OIDC_TOKEN",
    "READ_ONLY_SESSION",
    "VERIFICATION_TOKEN_REQUIRED",
    "VERIFICATION_TOKEN_USED",
    "OIDC_TOKEN_USED",
    "CREDENTIAL_CONFLICT",
    "ATTESTATION_INVALID",
  ],
  activities: [
    "ACTIVITY_NOT_FOUND",
    "ACTIVITY_NOT_VOTABLE",
    "ALREADY_VOTED",
    "ORGANIZATION_MISMATCH",
    "INVALID_ACTIVITY_CALLER",
    "CONSENSUS_NEEDED",
  ],
  organizations: ["ORGANIZATION_NOT_FOUND", "FEATURE_DISABLED"],
  users: ["USER_NOT_FOUND", "INVALID_EMAIL"],
  credentials: ["API_KEY_NOT_FOUND", "PUBLIC_KEY_NOT_FOUND", "OAUTH_PROVIDER_ALREADY_EXISTS"],
  wallets: ["WALLET_NOT_FOUND", "WALLET_ACCOUNT_NOT_FOUND", "PRIVATE_KEY_NOT_FOUND"],
  signing: ["SIGN_WITH_NOT_FOUND", "HASH_FUNCTION_NOT_APPLICABLE"],
  policies: ["POLICY_NOT_FOUND", "INVALID_POLICY", "VELOCITY_CONTROL_NOT_FOUND", "INVALID_VELOCITY_CONTROL"],
  mfa: ["MFA_POLICY_NOT_FOUND", "INVALID_MFA_POLICY", "MFA_METHOD_NOT_ACCEPTED"],
  otp: ["OTP_NOT_FOUND", "OTP_EXPIRED", "OTP_ALREADY_USED", "OTP_CODE_INVALID", "OTP_LOCKED", "MESSAGING_NOT_CONFIGURED"],
  oauth: ["OAUTH2_CREDENTIAL_NOT_FOUND", "OAUTH2_PROVIDER_NOT_FOUND"],
  webhooks: ["INVALID_WEBHOOK_URL", "WEBHOOK_ENDPOINT_NOT_FOUND"],
  transactions: ["CHAIN_NOT_CONFIGURED", "CHAIN_UNAVAILABLE", "SEND_TRANSACTION_NOT_FOUND", "SPONSORSHIP_UNAVAILABLE"],
  authProxy: [
    "AUTH_PROXY_CONFIG_MISSING",
    "AUTH_PROXY_CONFIG_NOT_FOUND",
    "AUTH_METHOD_NOT_ALLOWED",
    "ORIGIN_NOT_ALLOWED",
    "OAUTH_CLIENT_ID_NOT_ALLOWED",
    "CREDENTIAL_NOT_ALLOWED",
    "AUTH_PROXY_DISABLED",
    "AUTH_PROXY_NOT_ENABLED",
  ],
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES][number];

/**
 * Bad input: 400 with REQUEST_INVALID, or another code, and the fields at fault. The fields may come second
 * when the code is REQUEST_INVALID.
 */
export function invalidArgument(message: string, fields?: FieldViolation[]): ApiError;
export function invalidArgument(message: string, turnkeyErrorCode?: ErrorCode, fields?: FieldViolation[]): ApiError;
export function invalidArgument(message: string, codeOrFields?: ErrorCode | FieldViolation[], fields: FieldViolation[] = []): ApiError {
  if (Array.isArray(codeOrFields)) return new ApiError(GrpcCode.INVALID_ARGUMENT, message, "REQUEST_INVALID", codeOrFields);
  return new ApiError(GrpcCode.INVALID_ARGUMENT, message, codeOrFields ?? "REQUEST_INVALID", fields);
}

/** Bad input in one field: "<field>: <why>", with that field violation. */
export const invalidField = (field: string, why: string, turnkeyErrorCode: ErrorCode = "REQUEST_INVALID") =>
  invalidArgument(`${field}: ${why}`, turnkeyErrorCode, [{ field, description: why }]);

export const notFound = (message: string, turnkeyErrorCode?: ErrorCode) => new ApiError(GrpcCode.NOT_FOUND, message, turnkeyErrorCode);

export const alreadyExists = (message: string, turnkeyErrorCode?: ErrorCode) =>
  new ApiError(GrpcCode.ALREADY_EXISTS, message, turnkeyErrorCode);

export const permissionDenied = (message: string, turnkeyErrorCode: ErrorCode = "REQUEST_NOT_AUTHORIZED") =>
  new ApiError(GrpcCode.PERMISSION_DENIED, message, turnkeyErrorCode);

/**
 * The organization's policies denied a new activity: a 403 like any other, which metrics count as a denial;
 * `byDenyPolicy`: a deny policy decided it (rather than no policy allowing it), which has a hosted wording.
 */
export class PolicyDenied extends ApiError {
  constructor(message: string, byDenyPolicy: boolean) {
    super(GrpcCode.PERMISSION_DENIED, message, "REQUEST_NOT_AUTHORIZED");
    if (byDenyPolicy) this.hostedWording = { message: "policy engine denied request explicitly", details: [] };
  }
}

export const policyDenied = (message: string, byDenyPolicy: boolean) => new PolicyDenied(message, byDenyPolicy);

export const unauthenticated = (message: string, turnkeyErrorCode: ErrorCode = "UNAUTHENTICATED") =>
  new ApiError(GrpcCode.UNAUTHENTICATED, message, turnkeyErrorCode);

export const resourceExhausted = (message: string, turnkeyErrorCode?: ErrorCode) =>
  new ApiError(GrpcCode.RESOURCE_EXHAUSTED, message, turnkeyErrorCode);

export const failedPrecondition = (message: string, turnkeyErrorCode?: ErrorCode) =>
  new ApiError(GrpcCode.FAILED_PRECONDITION, message, turnkeyErrorCode);

export const internalError = (message = "internal error") => new ApiError(GrpcCode.INTERNAL, message, "INTERNAL");

/**
 * Over a rate limit or budget: RESOURCE_EXHAUSTED (429) with the documented RATE_LIMIT_EXCEEDED code and a
 * standard `google.rpc.RetryInfo` detail saying when to retry (the auth proxy also sends it as Retry-After).
 */
export class RateLimitedError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(GrpcCode.RESOURCE_EXHAUSTED, message, "RATE_LIMIT_EXCEEDED");
  }

  override toBody(): ErrorBody {
    const body = super.toBody();
    body.details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${this.retryAfterSeconds}s` });
    return body;
  }

  /** The rate limit a stored failure body describes, if it is one. */
  static ofBody(body: ErrorBody): RateLimitedError | undefined {
    const retry = body.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
    const seconds = typeof retry?.retryDelay === "string" ? Number.parseInt(retry.retryDelay, 10) : NaN;
    return body.code === GrpcCode.RESOURCE_EXHAUSTED && Number.isSafeInteger(seconds)
      ? new RateLimitedError(body.message, seconds)
      : undefined;
  }
}

/**
 * How errors are worded (STRONGROOM_ERROR_MESSAGES): "explained", Strongroom's own messages naming what was wrong;
 * "hosted", the hosted API's exact message (and details, where known) for every error whose wording is known.
 */
export const ERROR_MESSAGE_STYLES = ["explained", "hosted"] as const;
export type ErrorMessageStyle = (typeof ERROR_MESSAGE_STYLES)[number];

/** The hosted API's message for an error; `details` absent: Strongroom's own details are kept. */
export interface HostedWording {
  message: string;
  details?: ErrorBody["details"];
}

/**
 * The hosted API's wording by error code, from its error reference and the strings its SDKs compare (sdk-core
 * recognises an expired session by the first two).
 */
const HOSTED_WORDING_BY_CODE: Partial<Record<ErrorCode, HostedWording>> = {
  PUBLIC_KEY_NOT_FOUND: { message: "could not find public key in organization or its parent organization" },
  API_KEY_EXPIRED: { message: "Unauthenticated desc = expired api key publicKey" },
  SIGNATURE_MISSING: { message: "no valid authentication signature found for request" },
  ORGANIZATION_NOT_FOUND: { message: "no organization found with the given ID" },
  INVALID_ORGANIZATION_ID: { message: "malformed organization ID provided" },
  REQUEST_NOT_AUTHORIZED: { message: "request not authorized" },
  OTP_CODE_INVALID: { message: "Invalid OTP code" },
};

/** Strongroom's own message of an error answered in the hosted wording (CORS-exposed). */
export const EXPLANATION_HEADER = "X-Strongroom-Explanation";

export interface ErrorReply {
  status: number;
  body: ErrorBody;
  /** Strongroom's own message, when the body carries the hosted one instead. */
  explanation?: string;
}

/** The reply to an error in the given style; undefined for an error that is not the client's (a 500, logged). */
export function errorReply(error: unknown, style: ErrorMessageStyle = "explained"): ErrorReply | undefined {
  if (error instanceof ApiError) {
    const body = error.toBody();
    const hosted =
      style === "hosted" ? (error.hostedWording ?? (error.turnkeyErrorCode && HOSTED_WORDING_BY_CODE[error.turnkeyErrorCode])) : undefined;
    if (!hosted || hosted.message === body.message) return { status: error.httpStatus, body };
    return {
      status: error.httpStatus,
      body: { code: body.code, message: hosted.message, details: hosted.details ?? body.details },
      explanation: body.message,
    };
  }
  // store/database.ts's DatabaseUnavailable, known by name: the store sits beside this module, not below it.
  if (error instanceof Error && error.name === "DatabaseUnavailable") {
    return {
      status: 503,
      body: new ApiError(GrpcCode.UNAVAILABLE, "the database is unavailable; retry shortly", undefined, [], 503).toBody(),
    };
  }
  // src/crypto/keyring/keyring.ts's SealedError, known by name: a key was needed while the process is sealed.
  if (error instanceof Error && error.name === "Sealed") {
    return { status: 503, body: new ApiError(GrpcCode.UNAVAILABLE, error.message, undefined, [], 503).toBody() };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return {
      status: 413,
      body: new ApiError(
        GrpcCode.RESOURCE_EXHAUSTED,
        `request body is larger than the limit of ${fastifyError.message.match(/\d+/)?.[0] ?? "?"} bytes`,
        "REQUEST_INVALID",
        [],
        413,
      ).toBody(),
    };
  }
  if (typeof fastifyError.statusCode === "number" && fastifyError.statusCode < 500) {
    return {
      status: fastifyError.statusCode,
      body: new ApiError(GrpcCode.INVALID_ARGUMENT, fastifyError.message, "REQUEST_INVALID", [], fastifyError.statusCode).toBody(),
    };
  }
  return undefined;
}
