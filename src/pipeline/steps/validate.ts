import type { TObject, Static } from "@sinclair/typebox";
import { validate } from "../../schema/validation.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";
import type { Caller } from "./authenticate.js";
import { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";

/** Step "validate", first half: the operation's parameters against its schema (400 naming the field). */
export function checkSchema<S extends TObject>(schema: S, parameters: unknown): Static<S> {
  return validate(schema, parameters, "parameters") as Static<S>;
}

/**
 * Step "validate", second half: the definition's own input checks, on committed rows, outside any transaction — or,
 * for a definition `validatedByExecute`, in the activity's transaction (`db`) before it has written anything.
 */
export async function validateWithDefinition(
  services: Services,
  definition: ActivityDefinition,
  caller: Caller,
  params: Record<string, unknown>,
  parsedTransactions: ParsedTransactions = new ParsedTransactions(),
  db: Queryable = services.db,
): Promise<unknown> {
  return definition.validate?.(
    {
      db,
      services,
      organization: caller.organization,
      requesterUserId: caller.principal.user.id,
      ...(caller.principal.credential.kind === "api-key" ? { requesterApiPublicKey: caller.principal.credential.publicKey } : {}),
      now: caller.now,
      parsedTransactions,
      ...(caller.readAhead ? { readAhead: caller.readAhead } : {}),
    },
    params,
  );
}

/**
 * Whether a submission leaves `validate` to the transaction (ActivityDefinition.validatedByExecute): only a definition
 * without `prepare` or `fill`, whose decision is taken in the transaction.
 */
export const validationDeferred = (definition: ActivityDefinition): boolean =>
  definition.validatedByExecute === true && !definition.prepare && !definition.fill;
