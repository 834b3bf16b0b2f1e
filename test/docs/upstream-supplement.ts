/**
 * What `@turnkey/http` 6.6.0 adds to the upstream API description in ../shared/spec/public_api.swagger.json,
 * which predates it (no swagger ships in the npm package): the 11 paths it added, the definitions of the ones
 * Strongroom serves, their intent and result keys, and the optional request fields 6.6.0 added to served
 * operations. Transcribed from the package's generated types
 * (node_modules/@turnkey/http/dist/__generated__/services/coordinator/public/v1/public_api.types.d.ts);
 * `test/docs/upstream-supplement.test.ts` holds this file to those types, so it cannot drift from them.
 */
interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: string[];
}

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
const str: Schema = { type: "string" };
const bool: Schema = { type: "boolean" };
const empty: Schema = { type: "object", properties: {} };
const array = (items: Schema): Schema => ({ type: "array", items });
const object = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({
  type: "object",
  properties,
  required,
});
/** An activity request: its type, timestamp, organization and parameters. */
const activityRequest = (type: string, intent: string): Schema =>
  object(
    { type: { type: "string", enum: [type] }, timestampMs: str, organizationId: str, parameters: ref(intent), generateAppProofs: bool },
    ["type", "timestampMs", "organizationId", "parameters"],
  );
const path = (request: string, response: string) => ({
  post: { parameters: [{ schema: ref(request) }], responses: { "200": { schema: ref(response) } } },
});

/** Paths 6.6.0 added, by the definitions of their request and response (served ones) or none (hosted-only ones). */
export const SUPPLEMENT_PATHS: Record<string, ReturnType<typeof path> | Record<string, never>> = {
  "/public/v1/submit/create_velocity_control": path("v1CreateVelocityControlRequest", "v1ActivityResponse"),
  "/public/v1/submit/delete_velocity_control": path("v1DeleteVelocityControlRequest", "v1ActivityResponse"),
  "/public/v1/query/get_velocity_control": path("v1GetVelocityControlRequest", "v1GetVelocityControlResponse"),
  "/public/v1/query/list_velocity_controls": path("v1ListVelocityControlsRequest", "v1ListVelocityControlsResponse"),
  "/public/v1/query/get_active_policies": path("v1GetActivePoliciesRequest", "v1GetActivePoliciesResponse"),
  "/public/v1/submit/delete_secrets": path("v1DeleteSecretsRequest", "v1ActivityResponse"),
  "/public/v1/query/get_earn_claim_rewards_status": {},
  "/public/v1/query/list_earn_rewards": {},
  "/public/v1/submit/earn_claim_rewards": {},
  "/public/v1/query/list_tvc_operators": {},
  "/public/v1/query/list_tvc_quorum_keys": {},
};

const filterActivity = array(ref("v1VelocityControlDataSourceFilterActivity"));

/** Definitions 6.6.0 added (for the served paths), and fields it added to existing ones (merged into them). */
export const SUPPLEMENT_DEFINITIONS: Record<string, Schema> = {
  v1CreateVelocityControlRequest: activityRequest("ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL", "v1CreateVelocityControlIntent"),
  v1CreateVelocityControlIntent: object({
    name: str,
    dataSource: ref("v1VelocityControlDataSource"),
    aggregation: ref("v1VelocityControlAggregation"),
    identifier: str,
  }),
  v1CreateVelocityControlResult: object({ velocityControlId: str }),
  v1DeleteVelocityControlRequest: activityRequest("ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL", "v1DeleteVelocityControlIntent"),
  v1DeleteVelocityControlIntent: object({ velocityControlId: str }),
  v1DeleteVelocityControlResult: object({ velocityControlId: str }),
  v1GetVelocityControlRequest: object({ organizationId: str, velocityControlId: str }),
  v1GetVelocityControlResponse: object({ velocityControl: ref("v1VelocityControl") }),
  v1ListVelocityControlsRequest: object({ organizationId: str, paginationOptions: ref("v1Pagination") }, ["organizationId"]),
  v1ListVelocityControlsResponse: object({ velocityControls: array(ref("v1VelocityControl")), pageInfo: ref("v1PageInfo") }),
  v1VelocityControl: object({
    velocityControlId: str,
    organizationId: str,
    name: str,
    dataSource: ref("v1VelocityControlDataSource"),
    aggregation: ref("v1VelocityControlAggregation"),
    createdAt: ref("externaldatav1Timestamp"),
    updatedAt: ref("externaldatav1Timestamp"),
    identifier: str,
  }),
  v1VelocityControlAggregation: object({
    method: ref("v1VelocityControlAggregationMethod"),
    operator: ref("v1VelocityControlAggregationOperator"),
    threshold: str,
    window: ref("v1VelocityControlAggregationWindow"),
    groupBy: ref("v1VelocityControlAggregationGroupBy"),
  }),
  v1VelocityControlAggregationMethod: {
    type: "string",
    enum: ["VELOCITY_CONTROL_AGGREGATION_METHOD_SUM", "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT"],
  },
  v1VelocityControlAggregationOperator: {
    type: "string",
    enum: [
      "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN",
      "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL",
      "VELOCITY_CONTROL_AGGREGATION_OPERATOR_EQUAL",
      "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN_OR_EQUAL",
      "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN",
    ],
  },
  v1VelocityControlAggregationGroupBy: object({ organization: empty, user: empty, wallet: empty }, []),
  v1VelocityControlAggregationWindow: object({ rolling: ref("v1VelocityControlAggregationWindowRolling"), infinite: empty }, []),
  v1VelocityControlAggregationWindowRolling: object({ duration: str }),
  v1VelocityControlDataSource: object(
    {
      chainAssetTransfer: ref("v1VelocityControlDataSourceChainAssetTransfer"),
      activityExecution: ref("v1VelocityControlDataSourceActivityExecution"),
    },
    [],
  ),
  v1VelocityControlDataSourceActivityExecution: object({ filter: object({ activity: filterActivity }, []) }, []),
  v1VelocityControlDataSourceChainAssetTransfer: object(
    {
      definition: array(ref("v1VelocityControlDataSourceChainAssetTransferDefinition")),
      filter: object({ activity: filterActivity }, []),
      phase: object({ signature: empty, submission: empty }, []),
    },
    ["definition"],
  ),
  v1VelocityControlDataSourceChainAssetTransferDefinition: object({ caip19: str, decimals: str }),
  v1VelocityControlDataSourceFilterActivity: object({ activityType: str }),
  v1GetActivePoliciesRequest: object({ organizationId: str }),
  v1GetActivePoliciesResponse: object({ statuses: array(ref("v1ActivePolicyStatus")), evaluatedAtMs: str }),
  v1ActivePolicyStatus: object({ organizationId: str, policyId: str, active: bool, timeExpr: str, error: str }, [
    "organizationId",
    "policyId",
    "active",
  ]),
  v1DeleteSecretsRequest: object({
    type: { type: "string", enum: ["ACTIVITY_TYPE_DELETE_SECRETS"] },
    timestampMs: str,
    organizationId: str,
    parameters: ref("v1DeleteSecretsIntent"),
  }),
  v1DeleteSecretsIntent: object({ secretIds: array(str) }),
  v1KeyValue: object({ key: str, value: str }, []),
  v1DeleteSecretsResult: object({ secretIds: array(str) }),
};

/** Optional fields 6.6.0 added to definitions the swagger already has. */
export const SUPPLEMENT_FIELDS: Record<string, Record<string, Schema>> = {
  v1Intent: {
    createVelocityControlIntent: ref("v1CreateVelocityControlIntent"),
    deleteVelocityControlIntent: ref("v1DeleteVelocityControlIntent"),
    deleteSecretsIntent: ref("v1DeleteSecretsIntent"),
  },
  v1Result: {
    createVelocityControlResult: ref("v1CreateVelocityControlResult"),
    deleteVelocityControlResult: ref("v1DeleteVelocityControlResult"),
    deleteSecretsResult: ref("v1DeleteSecretsResult"),
  },
  v1ExportSecretParams: { requestContext: array(ref("v1KeyValue")) },
};

/** Activity types 6.6.0 added that Strongroom serves. */
export const SUPPLEMENT_ACTIVITY_TYPES = [
  "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
  "ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL",
  "ACTIVITY_TYPE_DELETE_SECRETS",
];

/** The swagger with the supplement merged in (a copy; the input is not changed). */
export function withSupplement<T extends { paths: Record<string, unknown>; definitions: Record<string, Schema> }>(swagger: T): T {
  const definitions: Record<string, Schema> = { ...swagger.definitions, ...SUPPLEMENT_DEFINITIONS };
  for (const [name, fields] of Object.entries(SUPPLEMENT_FIELDS)) {
    const base = definitions[name]!;
    definitions[name] = { ...base, properties: { ...base.properties, ...fields } };
  }
  const activityType = definitions.v1ActivityType!;
  definitions.v1ActivityType = { ...activityType, enum: [...(activityType.enum ?? []), ...SUPPLEMENT_ACTIVITY_TYPES] };
  return { ...swagger, paths: { ...swagger.paths, ...SUPPLEMENT_PATHS }, definitions };
}
