import type { OrganizationRow } from "../../records/organization.js";
import type { Services } from "../../services.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";

/** No preparation ran: the definition has none, or the decision did not allow the activity. */
export const NOT_PREPARED: unique symbol = Symbol("not prepared");

/** A preparation that threw, at the deciding approval: execution fails the activity with its error. */
export class PreparationFailed {
  constructor(readonly error: unknown) {}
}

export type Preparation = unknown;

/**
 * For tests only (docs/development.md): `STRONGROOM_TEST_HOLD_PREPARE=<activity type>` makes every preparation of
 * that type say so on stderr and then never finish, so a test can kill the process in the middle of one. Unset (as
 * in production) it does nothing.
 */
async function holdForTest(definition: ActivityDefinition): Promise<void> {
  if (process.env.STRONGROOM_TEST_HOLD_PREPARE !== definition.type) return;
  process.stderr.write(`strongroom: STRONGROOM_TEST_HOLD_PREPARE: holding the preparation of ${definition.type}\n`);
  await new Promise<never>(() => undefined);
}

/**
 * Step "prepare": the definition's outside calls and CPU-heavy work, outside any transaction, only once the
 * decision allowed the activity. At submission its error is the request's; at the deciding approval (`atVote`)
 * it is kept and becomes the activity's failure, as an error found by the handler would.
 */
export async function prepare(
  services: Services,
  definition: ActivityDefinition,
  params: Record<string, unknown>,
  organization: OrganizationRow,
  options: { atVote: boolean },
): Promise<Preparation> {
  if (!definition.prepare) return undefined;
  await holdForTest(definition);
  if (!options.atVote) return definition.prepare(services, params, organization);
  try {
    return await definition.prepare(services, params, organization);
  } catch (error) {
    return new PreparationFailed(error);
  }
}
