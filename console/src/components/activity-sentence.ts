import { describeType, type Activity } from "../api/requests.js";
import type { Names } from "./names.js";

const quote = (text: string) => `“${text}”`;

/** One parameter as words: a name quoted, an id by its name, a list counted, a yes/no, a short value. */
function describeParameter(key: string, value: unknown, names: Names): string | undefined {
  const label = key.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  if (typeof value === "string") {
    if (value === "") return undefined;
    const named = names.get(value.toLowerCase());
    if (named) return `${label.replace(/ id$/, "")} ${named}`;
    if (/name$/i.test(key)) return quote(value);
    if (value.length > 48) return `${label} ${value.slice(0, 16)}…`;
    return `${label} ${value.replace(/^[A-Z]+(_[A-Z0-9]+)+$/, (enumValue) => enumValue.split("_").slice(-2).join(" ").toLowerCase())}`;
  }
  if (typeof value === "number" || typeof value === "bigint") return `${label} ${String(value)}`;
  if (typeof value === "boolean") return value ? label : undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const strings = value.filter((v): v is string => typeof v === "string");
    if (strings.length === value.length && strings.every((s) => names.has(s.toLowerCase()))) {
      return `${label.replace(/ ids$/, "s")} ${strings.map((s) => names.get(s.toLowerCase())).join(", ")}`;
    }
    const singular = label.replace(/s$/, "");
    return `${value.length} ${value.length === 1 ? singular : label}`;
  }
  return undefined;
}

/**
 * An activity in one sentence: who asked for what, with its parameters' names, ids as names and lists counted —
 * "Root user (you) asked to create wallet “Treasury” with 1 account". The intent itself stays a click away.
 */
export function describeActivity(activity: Activity, names: Names): string {
  const intentKey = Object.keys(activity.intent ?? {})[0];
  const params = (intentKey ? (activity.intent as Record<string, unknown>)[intentKey] : undefined) as Record<string, unknown> | undefined;
  const requesterId = activity.votes[0]?.userId;
  const requester = (requesterId && names.get(requesterId)) ?? activity.votes[0]?.user?.userName ?? "Someone";
  const details = Object.entries(params ?? {})
    .map(([key, value]) => describeParameter(key, value, names))
    .filter((part): part is string => part !== undefined);
  const what = describeType(activity.type).toLowerCase();
  const quoted = details.filter((d) => d.startsWith("“"));
  const rest = details.filter((d) => !d.startsWith("“"));
  const list = rest.length <= 1 ? rest.join("") : `${rest.slice(0, -1).join(", ")} and ${rest.at(-1)}`;
  return `${requester} asked to ${what}${quoted.length ? ` ${quoted.join(" ")}` : ""}${list ? `: ${list}` : ""}.`;
}
