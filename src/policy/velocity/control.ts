/**
 * A velocity control as the engine reads it: its data source (which activities and transfers are its data
 * points), its aggregation (SUM or COUNT over a rolling or infinite window, per organization, user or wallet)
 * and its threshold, in exact scaled units (decimal.ts). `compileControl` is also the check create_velocity_control
 * runs on its input, so every stored control compiles.
 */
import type { AssetTransfer } from "../../operations/activity-definition.js";
import type { VelocityControlAggregation, VelocityControlDataSource } from "../../records/velocity-control.js";
import { activityKind } from "../keywords/index.js";
import { API_ACTIVITY_KINDS } from "./activity-kinds.js";
import { mayBe, parseControlAsset, type ControlAsset } from "./assets.js";
import { ONE, parseThreshold, scaleBaseUnits } from "./decimal.js";

export type GroupBy = "organization" | "user" | "wallet";
export type Operator = VelocityControlAggregation["operator"];

export interface CompiledControl {
  id: string;
  identifier: string;
  source: { kind: "transfer"; assets: ControlAsset[]; kinds?: ReadonlySet<string> } | { kind: "execution"; kinds?: ReadonlySet<string> };
  method: "SUM" | "COUNT";
  operator: Operator;
  /** Scaled units (10^-18). */
  threshold: bigint;
  /** The rolling window in seconds; undefined: infinite. */
  windowSeconds?: number;
  groupBy: GroupBy;
}

/** A rolling window is at most about 100 years: time arithmetic stays exact in milliseconds. */
export const MAX_WINDOW_SECONDS = 3_153_600_000;

/** A refusal of one field of a control's definition: the field's path under the intent, and why. */
export interface ControlRefusal {
  field: string;
  why: string;
}

const only = (object: Record<string, unknown>, names: readonly string[]) => names.filter((name) => object[name] !== undefined);

function exactlyOne(object: Record<string, unknown>, names: readonly string[], field: string): string | ControlRefusal {
  const set = only(object, names);
  if (set.length === 1) return set[0]!;
  return { field, why: `set exactly one of ${names.join(", ")}${set.length > 1 ? `, not ${set.join(" and ")}` : ""}` };
}

function activityKinds(
  filter: { activity?: Array<{ activityType: string }> } | undefined,
  field: string,
): ReadonlySet<string> | undefined | ControlRefusal {
  const listed = filter?.activity;
  if (!listed || listed.length === 0) return undefined;
  const kinds = new Set<string>();
  for (const [i, { activityType }] of listed.entries()) {
    const kind = activityKind(activityType);
    if (!activityType.startsWith("ACTIVITY_TYPE_") || !API_ACTIVITY_KINDS.has(kind))
      return { field: `${field}.activity[${i}].activityType`, why: `${JSON.stringify(activityType)} is not an activity type of the API` };
    kinds.add(kind);
  }
  return kinds;
}

const isRefusal = (value: unknown): value is ControlRefusal => typeof value === "object" && value !== null && "why" in value;

/** A stored (or submitted) control, compiled; or the first thing wrong with it. */
export function compileControl(control: {
  id: string;
  identifier: string;
  dataSource: VelocityControlDataSource;
  aggregation: VelocityControlAggregation;
}): CompiledControl | ControlRefusal {
  const { dataSource, aggregation } = control;
  const sourceKind = exactlyOne(dataSource, ["chainAssetTransfer", "activityExecution"], "dataSource");
  if (isRefusal(sourceKind)) return sourceKind;
  let source: CompiledControl["source"];
  if (sourceKind === "chainAssetTransfer") {
    const transfer = dataSource.chainAssetTransfer!;
    if (transfer.phase) {
      const phase = exactlyOne(transfer.phase, ["signature", "submission"], "dataSource.chainAssetTransfer.phase");
      if (isRefusal(phase)) return phase;
      if (phase === "submission")
        return {
          field: "dataSource.chainAssetTransfer.phase.submission",
          why: "measuring a transfer once it lands on chain is reserved for future use by the API; measure it at signature (the default)",
        };
    }
    const assets: ControlAsset[] = [];
    for (const [i, entry] of transfer.definition.entries()) {
      const at = `dataSource.chainAssetTransfer.definition[${i}]`;
      if (!/^(0|[1-9]\d{0,2})$/.test(entry.decimals) || Number(entry.decimals) > 255)
        return { field: `${at}.decimals`, why: `${JSON.stringify(entry.decimals)} is not a base-10 integer from 0 through 255` };
      const asset = parseControlAsset(entry.caip19, Number(entry.decimals));
      if (typeof asset === "string") return { field: `${at}.caip19`, why: asset };
      if (
        assets.some((a) => a.namespace === asset.namespace && a.chain === asset.chain && a.token === asset.token && a.kind === asset.kind)
      )
        return { field: `${at}.caip19`, why: `${entry.caip19} is listed twice` };
      assets.push(asset);
    }
    const kinds = activityKinds(transfer.filter, "dataSource.chainAssetTransfer.filter");
    if (isRefusal(kinds)) return kinds;
    source = { kind: "transfer", assets, ...(kinds ? { kinds } : {}) };
  } else {
    const kinds = activityKinds(dataSource.activityExecution!.filter, "dataSource.activityExecution.filter");
    if (isRefusal(kinds)) return kinds;
    source = { kind: "execution", ...(kinds ? { kinds } : {}) };
  }
  const threshold = parseThreshold(aggregation.threshold);
  if (typeof threshold === "string") return { field: "aggregation.threshold", why: threshold };
  const window = exactlyOne(aggregation.window, ["rolling", "infinite"], "aggregation.window");
  if (isRefusal(window)) return window;
  let windowSeconds: number | undefined;
  if (window === "rolling") {
    const { duration } = aggregation.window.rolling!;
    if (!/^[1-9]\d*$/.test(duration) || Number(duration) > MAX_WINDOW_SECONDS)
      return {
        field: "aggregation.window.rolling.duration",
        why: `${JSON.stringify(duration)} is not a whole number of seconds from 1 through ${MAX_WINDOW_SECONDS}`,
      };
    windowSeconds = Number(duration);
  }
  const groupBy = exactlyOne(aggregation.groupBy, ["organization", "user", "wallet"], "aggregation.groupBy");
  if (isRefusal(groupBy)) return groupBy;
  return {
    id: control.id,
    identifier: control.identifier,
    source,
    method: aggregation.method === "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM" ? "SUM" : "COUNT",
    operator: aggregation.operator,
    threshold,
    ...(windowSeconds === undefined ? {} : { windowSeconds }),
    groupBy: groupBy as GroupBy,
  };
}

/**
 * What one executed activity adds to a control's aggregate, in scaled units; undefined when it is no data point
 * of the control. An activity execution is one data point (COUNT and SUM both add 1). A transfer data point is
 * an activity that moved a listed asset: SUM adds each such transfer in whole-asset units (a transfer that may
 * be of several listed assets counts once, at its largest reading), COUNT adds 1.
 */
export function contribution(control: CompiledControl, activityType: string, transfers: readonly AssetTransfer[]): bigint | undefined {
  const { source } = control;
  if (source.kinds && !source.kinds.has(activityKind(activityType))) return undefined;
  if (source.kind === "execution") return ONE;
  let sum = 0n;
  let measured = false;
  for (const transfer of transfers) {
    const readings = source.assets
      .filter((asset) => mayBe(transfer, asset))
      .map((asset) => scaleBaseUnits(transfer.amount, asset.decimals));
    if (readings.length === 0) continue;
    measured = true;
    sum += readings.reduce((a, b) => (a > b ? a : b));
  }
  if (!measured) return undefined;
  return control.method === "COUNT" ? ONE : sum;
}

/** Whether `aggregate OP threshold` holds. */
export function compare(aggregate: bigint, operator: Operator, threshold: bigint): boolean {
  switch (operator) {
    case "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN":
      return aggregate < threshold;
    case "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL":
      return aggregate <= threshold;
    case "VELOCITY_CONTROL_AGGREGATION_OPERATOR_EQUAL":
      return aggregate === threshold;
    case "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN_OR_EQUAL":
      return aggregate >= threshold;
    case "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN":
      return aggregate > threshold;
  }
}
