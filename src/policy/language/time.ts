import { PolicyEvaluationError } from "./errors.js";

/** A point in time, as epoch milliseconds. */
export class Timestamp {
  constructor(readonly ms: number) {}
}

/** RFC 3339 with a zero UTC offset only (`Z`, `z`, `+00:00`, `-00:00`), as the language requires. */
export function parseTimestamp(text: string): Timestamp {
  const match = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]00:00)$/.exec(text);
  if (!match) {
    throw new PolicyEvaluationError(`Timestamp('${text}'): expected RFC 3339 with a zero UTC offset, like '2025-01-01T00:00:00Z'`);
  }
  const ms = Date.UTC(
    +match[1]!,
    +match[2]! - 1,
    +match[3]!,
    +match[4]!,
    +match[5]!,
    +match[6]!,
    Math.floor(Number(match[7] ?? "0") * 1000),
  );
  const back = new Date(ms);
  if (
    Number.isNaN(ms) ||
    back.getUTCDate() !== +match[3]! ||
    back.getUTCMonth() !== +match[2]! - 1 ||
    +match[4]! > 23 ||
    +match[5]! > 59 ||
    +match[6]! > 59
  ) {
    throw new PolicyEvaluationError(`Timestamp('${text}'): not a valid date and time`);
  }
  return new Timestamp(ms);
}

const FIELD_RANGES = [
  ["minute", 0, 59],
  ["hour", 0, 23],
  ["day-of-month", 1, 31],
  ["month", 1, 12],
  ["day-of-week", 0, 6],
] as const;

interface Cron {
  fields: Set<number>[];
  domRestricted: boolean;
  dowRestricted: boolean;
}

/** The documented strict 5-field subset: numbers, ranges, lists and `*`; no steps, names or macros. */
export function parseCron(text: string): Cron {
  const parts = text.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new PolicyEvaluationError(`CronSpan: '${text}' must have 5 fields (minute hour day-of-month month day-of-week)`);
  const fields = parts.map((part, i) => {
    const [name, min, max] = FIELD_RANGES[i]!;
    const values = new Set<number>();
    if (part === "*") {
      for (let v = min; v <= max; v++) values.add(v);
      return values;
    }
    for (const item of part.split(",")) {
      const range = /^(\d+)(?:-(\d+))?$/.exec(item);
      if (!range)
        throw new PolicyEvaluationError(
          `CronSpan: ${name} field '${part}' may hold numbers, ranges (1-5), lists (1,3,5) or *; steps, names and macros are not supported`,
        );
      const from = Number(range[1]);
      const to = range[2] === undefined ? from : Number(range[2]);
      if (from < min || to > max || from > to)
        throw new PolicyEvaluationError(`CronSpan: ${name} field '${part}' is outside ${min}-${max}`);
      for (let v = from; v <= to; v++) values.add(v);
    }
    return values;
  });
  return { fields, domRestricted: parts[2] !== "*", dowRestricted: parts[4] !== "*" };
}

/** Whole days, hours and minutes (`8h`, `90m`, `1d12h`), more than zero and at most 7 days; in ms. */
export function parseDuration(text: string): number {
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/.exec(text);
  if (!match || text === "")
    throw new PolicyEvaluationError(`CronSpan: duration '${text}' must be whole days, hours and minutes, like '8h', '90m' or '1d12h'`);
  const ms = ((Number(match[1] ?? 0) * 24 + Number(match[2] ?? 0)) * 60 + Number(match[3] ?? 0)) * 60_000;
  if (ms <= 0 || ms > 7 * 24 * 3_600_000)
    throw new PolicyEvaluationError(`CronSpan: duration '${text}' must be more than zero and at most 7 days`);
  return ms;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        weekday: "short",
      });
    } catch {
      throw new PolicyEvaluationError(`CronSpan: '${timeZone}' is not an IANA time zone name`);
    }
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

function localTime(ms: number, timeZone: string): LocalTime {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: +parts.year!,
    month: +parts.month!,
    day: +parts.day!,
    hour: +parts.hour!,
    minute: +parts.minute!,
    weekday: WEEKDAYS.indexOf(parts.weekday!),
  };
}

/** The instant a wall-clock time has in a zone, or undefined when it does not exist (DST gap). */
function instantOf(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): number | undefined {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  for (const guess of [wall, wall - 3_600_000 * 14, wall + 3_600_000 * 14]) {
    const offset = localWallMs(guess, timeZone) - guess;
    const candidate = wall - offset;
    const check = localTime(candidate, timeZone);
    if (check.year === year && check.month === month && check.day === day && check.hour === hour && check.minute === minute)
      return candidate;
  }
  return undefined;
}

function localWallMs(ms: number, timeZone: string): number {
  const t = localTime(ms, timeZone);
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute) + (ms % 60_000);
}

/** True when `now` falls in [fire, fire + duration) for some fire of the schedule in the zone. */
export function cronSpanActive(cronText: string, durationText: string, timeZone: string, now: number): boolean {
  const cron = parseCron(cronText);
  const duration = parseDuration(durationText);
  formatter(timeZone);
  const [minutes, hours, daysOfMonth, months, daysOfWeek] = cron.fields as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  const offsetNow = localWallMs(now, timeZone) - now;
  const slack = 3 * 3_600_000; // more than any DST shift
  // Walk back over every local day that can hold a fire inside the window (duration ≤ 7 days).
  for (let back = 0; back <= 8; back++) {
    const day = localTime(now - back * 86_400_000, timeZone);
    const dayMatches =
      cron.domRestricted && cron.dowRestricted
        ? daysOfMonth.has(day.day) || daysOfWeek.has(day.weekday)
        : daysOfMonth.has(day.day) && daysOfWeek.has(day.weekday);
    if (!months.has(day.month) || !dayMatches) continue;
    for (const hour of hours) {
      for (const minute of minutes) {
        const approximate = Date.UTC(day.year, day.month - 1, day.day, hour, minute) - offsetNow;
        if (approximate > now + slack || approximate + duration < now - slack) continue;
        const fire = instantOf(day.year, day.month, day.day, hour, minute, timeZone);
        if (fire !== undefined && fire <= now && now < fire + duration) return true;
      }
    }
  }
  return false;
}
