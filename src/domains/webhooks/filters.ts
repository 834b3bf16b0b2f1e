/**
 * Subscription filters (`filtersJson`). The API leaves their shape open; Strongroom's is:
 * ACTIVITY_UPDATES `{"activityTypes": [...], "activityStatuses": [...]}` and balance updates
 * `{"addresses": [...], "networks": ["eip155:1", ...]}`, transaction status updates `{"networks": [...],
 * "statuses": ["INCLUDED", "FAILED", ...]}` — every key optional, each a list of strings;
 * an event passes when every given list contains its value.
 */
export const EVENT_TYPES = [
  "ACTIVITY_UPDATES",
  "BALANCE_CONFIRMED_UPDATES",
  "BALANCE_FINALIZED_UPDATES",
  "SEND_TRANSACTION_STATUS_UPDATES",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const FILTER_KEYS: Record<EventType, string[]> = {
  ACTIVITY_UPDATES: ["activityTypes", "activityStatuses"],
  BALANCE_CONFIRMED_UPDATES: ["addresses", "networks"],
  BALANCE_FINALIZED_UPDATES: ["addresses", "networks"],
  SEND_TRANSACTION_STATUS_UPDATES: ["networks", "statuses"],
};

export type Filters = Record<string, string[]>;

export class FilterError extends Error {}

export function parseFilters(eventType: EventType, filtersJson: string | undefined): Filters {
  if (filtersJson === undefined || filtersJson.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(filtersJson);
  } catch {
    throw new FilterError("not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new FilterError("must be a JSON object");
  const allowed = FILTER_KEYS[eventType];
  for (const [key, list] of Object.entries(value)) {
    if (!allowed.includes(key))
      throw new FilterError(`unknown filter ${JSON.stringify(key)} for ${eventType}; use ${allowed.join(" and ")}`);
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) throw new FilterError(`${key} must be a list of strings`);
  }
  return value as Filters;
}

export function passes(filters: Filters, facts: Record<string, string>): boolean {
  const keyOf: Record<string, string> = {
    activityTypes: "activityType",
    activityStatuses: "activityStatus",
    addresses: "address",
    networks: "network",
    statuses: "status",
  };
  return Object.entries(filters).every(([key, list]) => {
    const fact = facts[keyOf[key]!];
    return fact === undefined || list.includes(fact) || (key === "addresses" && list.some((a) => a.toLowerCase() === fact.toLowerCase()));
  });
}
