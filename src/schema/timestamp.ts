import { Type, type Static } from "@sinclair/typebox";

/** The API's timestamp object: seconds and nanos as decimal strings. */
export const ApiTimestamp = Type.Object({ seconds: Type.String(), nanos: Type.String() });
export type ApiTimestamp = Static<typeof ApiTimestamp>;

export function toApiTimestamp(date: Date): ApiTimestamp {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: String((ms - seconds * 1000) * 1_000_000) };
}
