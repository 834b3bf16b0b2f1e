/** One CIDR rule of an IP allowlist, as stored in `ip_allowlists.rules`. */
export interface AllowlistRule {
  cidr: string;
  label?: string;
  createdAt: string;
}

/** An IP allowlist: the organization's (`public_key` empty) or one API key's. */
export interface AllowlistRow {
  public_key: string;
  enabled: boolean;
  on_evaluation_error: string;
  rules: AllowlistRule[];
}
