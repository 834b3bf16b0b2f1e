import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";

/** An @turnkey/http 6.6.0 client (the one with the velocity-control methods) acting with these credentials. */
export function httpClient(url: string, credentials: { apiPublicKey: string; apiPrivateKey: string }): TurnkeyClient {
  return new TurnkeyClient({ baseUrl: url }, new ApiKeyStamper(credentials));
}

type Intent = Parameters<TurnkeyClient["createVelocityControl"]>[0]["parameters"];

/** A daily cap (or any control): name defaults to the identifier. */
export function controlIntent(
  identifier: string,
  source: Intent["dataSource"],
  aggregation: {
    method?: "SUM" | "COUNT";
    operator?: "LESS_THAN" | "LESS_THAN_OR_EQUAL" | "EQUAL" | "GREATER_THAN_OR_EQUAL" | "GREATER_THAN";
    threshold: string;
    seconds?: number;
    groupBy?: "organization" | "user" | "wallet";
  },
): Intent {
  const { method = "SUM", operator = "LESS_THAN_OR_EQUAL", threshold, seconds, groupBy = "user" } = aggregation;
  return {
    name: identifier,
    identifier,
    dataSource: source,
    aggregation: {
      method: `VELOCITY_CONTROL_AGGREGATION_METHOD_${method}`,
      operator: `VELOCITY_CONTROL_AGGREGATION_OPERATOR_${operator}`,
      threshold,
      window: seconds === undefined ? { infinite: {} } : { rolling: { duration: String(seconds) } },
      groupBy: { [groupBy]: {} },
    },
  };
}

/** Creates a control as the root user; answers its id. */
export async function createControl(client: TurnkeyClient, organizationId: string, intent: Intent): Promise<string> {
  const { activity } = await client.createVelocityControl({
    type: "ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL",
    timestampMs: String(Date.now()),
    organizationId,
    parameters: intent,
  });
  if (activity.status !== "ACTIVITY_STATUS_COMPLETED") throw new Error(`create_velocity_control: ${activity.status}`);
  return activity.result.createVelocityControlResult!.velocityControlId;
}

/** The error a request was refused with, from either SDK (@turnkey/http and @turnkey/sdk-server have their own error classes). */
export async function refused(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error && typeof (error as { code?: unknown }).code === "number") return error as never;
    throw error;
  }
  throw new Error("expected the request to be refused, but it succeeded");
}
