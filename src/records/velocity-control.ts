import { Type, type Static } from "@sinclair/typebox";
import { notFound } from "../errors.js";
import { StringEnum } from "../schema/common.js";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import type { Queryable } from "../store/database.js";

const Empty = Type.Object({});
const FilterActivity = Type.Object({ activityType: Type.String({ minLength: 1, maxLength: 128 }) });
const ActivityFilter = Type.Object({ activity: Type.Optional(Type.Array(FilterActivity, { maxItems: 64 })) });

export const AGGREGATION_METHODS = ["VELOCITY_CONTROL_AGGREGATION_METHOD_SUM", "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT"] as const;
export const AGGREGATION_OPERATORS = [
  "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN",
  "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
  "VELOCITY_CONTROL_AGGREGATION_OPERATOR_EQUAL",
  "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN_OR_EQUAL",
  "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN",
] as const;

/** Where a control's data points come from: transfers of listed assets, or executed activities (exactly one). */
export const VelocityControlDataSource = Type.Object({
  chainAssetTransfer: Type.Optional(
    Type.Object({
      definition: Type.Array(
        Type.Object({ caip19: Type.String({ minLength: 1, maxLength: 256 }), decimals: Type.String({ minLength: 1, maxLength: 3 }) }),
        { minItems: 1, maxItems: 32 },
      ),
      filter: Type.Optional(ActivityFilter),
      phase: Type.Optional(Type.Object({ signature: Type.Optional(Empty), submission: Type.Optional(Empty) })),
    }),
  ),
  activityExecution: Type.Optional(Type.Object({ filter: Type.Optional(ActivityFilter) })),
});
export type VelocityControlDataSource = Static<typeof VelocityControlDataSource>;

/** How a control aggregates its data points and compares the aggregate with its threshold. */
export const VelocityControlAggregation = Type.Object({
  method: StringEnum(AGGREGATION_METHODS),
  operator: StringEnum(AGGREGATION_OPERATORS),
  threshold: Type.String({ minLength: 1, maxLength: 64, description: "Non-negative decimal: at most 38 digits, 18 fractional" }),
  window: Type.Object({
    rolling: Type.Optional(Type.Object({ duration: Type.String({ minLength: 1, maxLength: 20 }) })),
    infinite: Type.Optional(Empty),
  }),
  groupBy: Type.Object({ organization: Type.Optional(Empty), user: Type.Optional(Empty), wallet: Type.Optional(Empty) }),
});
export type VelocityControlAggregation = Static<typeof VelocityControlAggregation>;

export const VelocityControlRecord = Type.Object({
  velocityControlId: Type.String(),
  organizationId: Type.String(),
  name: Type.String(),
  dataSource: VelocityControlDataSource,
  aggregation: VelocityControlAggregation,
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  identifier: Type.String(),
});

export interface VelocityControlRow {
  id: string;
  organization_id: string;
  identifier: string;
  name: string;
  data_source: VelocityControlDataSource;
  aggregation: VelocityControlAggregation;
  created_at: Date;
  updated_at: Date;
}

export function velocityControlRecord(row: VelocityControlRow): Static<typeof VelocityControlRecord> {
  return {
    velocityControlId: row.id,
    organizationId: row.organization_id,
    name: row.name,
    dataSource: row.data_source,
    aggregation: row.aggregation,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
    identifier: row.identifier,
  };
}

const COLUMNS = "id, organization_id, identifier, name, data_source, aggregation, created_at, updated_at";

/** The organization's velocity controls, oldest first. */
export async function loadVelocityControls(db: Queryable, organizationId: string): Promise<VelocityControlRow[]> {
  return db.query<VelocityControlRow>(`SELECT ${COLUMNS} FROM velocity_controls WHERE organization_id = $1 ORDER BY seq`, [organizationId]);
}

export async function requireVelocityControl(
  db: Queryable,
  organizationId: string,
  id: string,
  field = "velocityControlId",
): Promise<VelocityControlRow> {
  const [row] = await db.query<VelocityControlRow>(`SELECT ${COLUMNS} FROM velocity_controls WHERE id = $1 AND organization_id = $2`, [
    id,
    organizationId,
  ]);
  if (!row)
    throw notFound(`${field}: no velocity control ${JSON.stringify(id)} in organization ${organizationId}`, "VELOCITY_CONTROL_NOT_FOUND");
  return row;
}
