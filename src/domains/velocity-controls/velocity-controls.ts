import { randomUUID } from "node:crypto";
import { alreadyExists, invalidField, resourceExhausted } from "../../errors.js";
import { compileControl } from "../../policy/velocity/control.js";
import { lockOrganizationForLimits } from "../../records/organization.js";
import type { VelocityControlAggregation, VelocityControlDataSource } from "../../records/velocity-control.js";
import type { Queryable } from "../../store/database.js";

/** Evaluating a policy reads every control it names: their number per organization is bounded. */
export const VELOCITY_CONTROLS_PER_ORGANIZATION = 100;

/** A control's identifier is a name of the policy language, so `controls.<identifier>` parses. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface NewVelocityControl {
  name: string;
  identifier: string;
  dataSource: VelocityControlDataSource;
  aggregation: VelocityControlAggregation;
}

/**
 * The input checks of create_velocity_control: the identifier, and the control compiles (its assets, decimals,
 * activity types, threshold, window and grouping). Answers the control as stored: only the fields the API defines.
 */
export function checkVelocityControl(control: NewVelocityControl): NewVelocityControl {
  if (!IDENTIFIER.test(control.identifier))
    throw invalidField(
      "identifier",
      `${JSON.stringify(control.identifier)} is not an identifier: a letter or underscore, then letters, digits or underscores (at most 64), so that policies can name it as controls.<identifier>`,
      "INVALID_VELOCITY_CONTROL",
    );
  const compiled = compileControl({ id: "", ...control });
  if ("why" in compiled) throw invalidField(compiled.field, compiled.why, "INVALID_VELOCITY_CONTROL");
  const { chainAssetTransfer: transfer, activityExecution: execution } = control.dataSource;
  const filter = (f: { activity?: Array<{ activityType: string }> } | undefined) =>
    f?.activity ? { filter: { activity: f.activity.map(({ activityType }) => ({ activityType })) } } : {};
  const { method, operator, threshold, window, groupBy } = control.aggregation;
  return {
    name: control.name,
    identifier: control.identifier,
    dataSource: transfer
      ? {
          chainAssetTransfer: {
            definition: transfer.definition.map(({ caip19, decimals }) => ({ caip19, decimals })),
            ...filter(transfer.filter),
            phase: { signature: {} },
          },
        }
      : { activityExecution: filter(execution!.filter) },
    aggregation: {
      method,
      operator,
      threshold,
      window: window.rolling ? { rolling: { duration: window.rolling.duration } } : { infinite: {} },
      groupBy: groupBy.organization ? { organization: {} } : groupBy.user ? { user: {} } : { wallet: {} },
    },
  };
}

export async function insertVelocityControl(
  tx: Queryable,
  organizationId: string,
  control: NewVelocityControl,
  now: Date,
): Promise<string> {
  await lockOrganizationForLimits(tx, organizationId);
  const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM velocity_controls WHERE organization_id = $1",
    [organizationId],
  );
  if (count >= VELOCITY_CONTROLS_PER_ORGANIZATION)
    throw resourceExhausted(
      `organization ${organizationId} already has the maximum of ${VELOCITY_CONTROLS_PER_ORGANIZATION} velocity controls`,
      "REQUEST_INVALID",
    );
  const [taken] = await tx.query<{ id: string }>("SELECT id FROM velocity_controls WHERE organization_id = $1 AND identifier = $2", [
    organizationId,
    control.identifier,
  ]);
  if (taken)
    throw alreadyExists(
      `identifier: velocity control identifiers must be unique: ${JSON.stringify(control.identifier)} is already velocity control ${taken.id} of organization ${organizationId}`,
    );
  const id = randomUUID();
  await tx.query(
    `INSERT INTO velocity_controls (id, organization_id, identifier, name, data_source, aggregation, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [id, organizationId, control.identifier, control.name, JSON.stringify(control.dataSource), JSON.stringify(control.aggregation), now],
  );
  return id;
}
