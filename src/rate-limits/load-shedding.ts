import ipaddr from "ipaddr.js";
import { RateLimitedError } from "../errors.js";
import { windowText } from "./budget.js";

/**
 * Requests per key in fixed windows, counted in this process's memory. For load shedding only: each process
 * protects its own CPU and store connection, and a cluster of N processes admits up to N times the figure.
 * The counts are dropped when a window ends, so memory holds at most the keys seen in one window.
 */
export class RequestBudget {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly describe: (key: string) => string,
  ) {}

  /** Counts one request of `key`, or refuses it with 429 naming the budget and when its window ends. */
  take(key: string, nowMs: number): void {
    const windowMs = this.windowSeconds * 1000;
    const start = nowMs - (nowMs % windowMs);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    if (count > this.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000));
      throw new RateLimitedError(
        `too many requests ${this.describe(key)}: at most ${this.limit} per ${windowText(this.windowSeconds)}; try again in ${retryAfterSeconds} s`,
        retryAfterSeconds,
      );
    }
    this.counts.set(key, count);
  }
}

/**
 * The key of a client address: IPv4 as is (IPv4-mapped IPv6 as IPv4), IPv6 by its /64 prefix, which one
 * subscriber usually holds whole (counting single IPv6 addresses would let one client count as 2^64).
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}
