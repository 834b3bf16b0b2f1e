import type { TurnkeyClient } from "@turnkey/http";
import { ACTIVITY_TYPES, RESULT_KEYS, type QueryOperation, type SubmitOperation } from "./operations.generated.js";

/** An activity as the API returns it (the fields the console reads). */
export interface Activity {
  id: string;
  organizationId: string;
  status: string;
  type: string;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  votes: Vote[];
  fingerprint: string;
  canApprove: boolean;
  canReject: boolean;
  createdAt: ApiTimestamp;
  updatedAt: ApiTimestamp;
  failure: { code: number; message: string } | null;
  appProofs?: unknown[];
}

export interface Vote {
  id: string;
  userId: string;
  user?: { userName?: string };
  selection: string;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  createdAt: ApiTimestamp;
}

export interface ApiTimestamp {
  seconds: string;
  nanos: string;
}

export const toDate = (timestamp: ApiTimestamp) => new Date(Number(timestamp.seconds) * 1000);

/** A stamped query: POST /public/v1/query/<operation>. */
export function query<T>(client: TurnkeyClient, operation: QueryOperation, body: Record<string, unknown>): Promise<T> {
  return client.request<Record<string, unknown>, T>(`/public/v1/query/${operation}`, body);
}

/** A stamped activity: POST /public/v1/submit/<operation>, with the type the server defines for it; answers the activity, whatever its status. */
export async function submit(
  client: TurnkeyClient,
  operation: SubmitOperation,
  organizationId: string,
  parameters: Record<string, unknown>,
): Promise<Activity> {
  const response = await client.request<Record<string, unknown>, { activity: Activity }>(`/public/v1/submit/${operation}`, {
    type: ACTIVITY_TYPES[operation],
    timestampMs: String(Date.now()),
    organizationId,
    parameters,
  });
  return response.activity;
}

/** A submitted activity's result, where the server's definition of `operation` puts it. */
export const resultOf = <T>(activity: Activity, operation: SubmitOperation) => activity.result[RESULT_KEYS[operation]] as T | undefined;

/** The API's error message (TurnkeyRequestError carries the server's `message`), or the error's own. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** create_wallet's activity type → "Create wallet" (a version suffix is dropped). */
export function describeType(type: string): string {
  const words = type
    .replace(/^ACTIVITY_TYPE_/, "")
    .replace(/_V\d+$/, "")
    .toLowerCase()
    .replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export const describeStatus = (status: string) =>
  status
    .replace(/^ACTIVITY_STATUS_/, "")
    .toLowerCase()
    .replace(/_/g, " ");
