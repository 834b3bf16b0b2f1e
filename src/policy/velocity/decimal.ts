/**
 * Exact decimal amounts for velocity controls, as bigint integers in units of 10^-18 ("scaled"): thresholds,
 * aggregates and transfer amounts are never floating point. A threshold has at most 38 digits, 18 of them
 * fractional (the API's limit), so every one is exactly representable.
 */
export const FRACTION_DIGITS = 18;
export const ONE = 10n ** BigInt(FRACTION_DIGITS);

const THRESHOLD = /^(\d+)(?:\.(\d+))?$/;

/** A threshold as scaled units, or why it is not one. */
export function parseThreshold(text: string): bigint | string {
  const match = THRESHOLD.exec(text);
  if (!match) return `${JSON.stringify(text)} is not a non-negative base-10 decimal (digits, optionally a point and more digits)`;
  const [, whole, fraction = ""] = match;
  if (fraction.length > FRACTION_DIGITS)
    return `${JSON.stringify(text)} has ${fraction.length} fractional digits; at most ${FRACTION_DIGITS}`;
  const digits = whole!.replace(/^0+(?=\d)/, "").length + fraction.length;
  if (digits > 38) return `${JSON.stringify(text)} has ${digits} digits; at most 38`;
  return BigInt(whole!) * ONE + BigInt(fraction.padEnd(FRACTION_DIGITS, "0"));
}

/** Scaled units as a plain decimal: no exponent, no trailing fractional zeros ("1.5", "0", "12"). */
export function formatScaled(value: bigint): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const whole = magnitude / ONE;
  const fraction = (magnitude % ONE).toString().padStart(FRACTION_DIGITS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/**
 * An amount in an asset's base units (wei, lamports, token units) as scaled whole-asset units, given the
 * asset's decimals (0–255). Beyond 18 decimals the amount is rounded up to the next 10^-18, so a cap is never
 * undercounted.
 */
export function scaleBaseUnits(amount: bigint, decimals: number): bigint {
  if (decimals <= FRACTION_DIGITS) return amount * 10n ** BigInt(FRACTION_DIGITS - decimals);
  const divisor = 10n ** BigInt(decimals - FRACTION_DIGITS);
  return (amount + divisor - 1n) / divisor;
}
