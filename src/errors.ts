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

  constructor(
    readonly code: number,
    message: string,
    readonly turnkeyErrorCode?: string,
    readonly fieldViolations: FieldViolation[] = [],
    httpStatus?: number,
  ) {
    super(message);
    this.name = "ApiError";
    this.httpStatus = httpStatus ?? httpStatusByCode[code] ?? 500;
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

export const invalidArgument = (message: string, turnkeyErrorCode = "REQUEST_INVALID", fields: FieldViolation[] = []) =>
  new ApiError(GrpcCode.INVALID_ARGUMENT, message, turnkeyErrorCode, fields);

export const notFound = (message: string, turnkeyErrorCode?: string) => new ApiError(GrpcCode.NOT_FOUND, message, turnkeyErrorCode);

export const alreadyExists = (message: string, turnkeyErrorCode?: string) =>
  new ApiError(GrpcCode.ALREADY_EXISTS, message, turnkeyErrorCode);

export const permissionDenied = (message: string, turnkeyErrorCode = "REQUEST_NOT_AUTHORIZED") =>
  new ApiError(GrpcCode.PERMISSION_DENIED, message, turnkeyErrorCode);

export const unauthenticated = (message: string, turnkeyErrorCode = "UNAUTHENTICATED") =>
  new ApiError(GrpcCode.UNAUTHENTICATED, message, turnkeyErrorCode);

export const resourceExhausted = (message: string, turnkeyErrorCode?: string) =>
  new ApiError(GrpcCode.RESOURCE_EXHAUSTED, message, turnkeyErrorCode);

export const failedPrecondition = (message: string, turnkeyErrorCode?: string) =>
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

  /** The error a stored failure body describes, when it is a rate limit (an activity's failure, read back). */
  static fromBody(body: ErrorBody): RateLimitedError | undefined {
    const retry = body.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
    const seconds = typeof retry?.retryDelay === "string" ? Number.parseInt(retry.retryDelay, 10) : NaN;
    return body.code === GrpcCode.RESOURCE_EXHAUSTED && Number.isSafeInteger(seconds)
      ? new RateLimitedError(body.message, seconds)
      : undefined;
  }
}

export function errorReply(error: unknown): { status: number; body: unknown } | undefined {
  if (error instanceof ApiError) return { status: error.httpStatus, body: error.toBody() };
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
