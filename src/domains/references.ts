import { ApiError, GrpcCode, invalidArgument } from "../errors.js";

/**
 * For `validate`: a request naming a row that does not exist (a user, a wallet, a tag, a policy...) is bad
 * input, refused with 400 naming the field, nothing written. The lookups are the domains' `require…`
 * functions, whose messages start with the field; the same lookup in `execute` still fails the activity
 * should the row vanish before a deciding approval runs it.
 */
export async function mustExist<T>(lookup: Promise<T>): Promise<T> {
  try {
    return await lookup;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== GrpcCode.NOT_FOUND) throw error;
    const [, field = "parameters", why = error.message] = /^([A-Za-z0-9_.[\]]+): (.*)$/s.exec(error.message) ?? [];
    throw invalidArgument(error.message, error.turnkeyErrorCode ?? "REQUEST_INVALID", [{ field, description: why }]);
  }
}
