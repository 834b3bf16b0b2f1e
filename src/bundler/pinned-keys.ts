/**
 * `@turnkey/crypto` pins the hosted service's public keys as constants with no override in some code paths (core's
 * `verifyOtp` checks the OTP target bundle against `PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY`). A browser app talking
 * to Strongroom needs those constants to be Strongroom's keys; the bundler plugins rewrite them at build time.
 */
export interface StrongroomKeys {
  /** Uncompressed P-256 public key (hex) that signs bundles, tokens and proofs: `signerPublicKey` of discovery. */
  signerPublicKey: string;
  /** Uncompressed P-256 public key (hex) that secrets are encrypted to: `encryptionPublicKey` of discovery. */
  encryptionPublicKey: string;
}

/** Which Strongroom key each pinned constant becomes. The on-ramp key is left alone: Strongroom has no on-ramp. */
const REPLACEMENTS: Record<string, keyof StrongroomKeys> = {
  PRODUCTION_SIGNER_SIGN_PUBLIC_KEY: "signerPublicKey",
  PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY: "signerPublicKey",
  PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY: "signerPublicKey",
  PRODUCTION_TLS_FETCHER_ENCRYPT_PUBLIC_KEY: "encryptionPublicKey",
};

/** `@turnkey/crypto`'s constants module, ESM or CommonJS, wherever the package manager put it (nested copies too). */
export const PINNED_KEYS_MODULE = /[\\/]@turnkey[\\/]crypto[\\/]dist[\\/]constants\.(?:m?js|cjs)(?:\?.*)?$/;

const UNCOMPRESSED_P256 = /^04[0-9a-f]{128}$/;

export function checkKeys(keys: StrongroomKeys): StrongroomKeys {
  for (const name of ["signerPublicKey", "encryptionPublicKey"] as const) {
    const value = keys[name]?.toLowerCase();
    if (!value || !UNCOMPRESSED_P256.test(value))
      throw new Error(`strongroom: ${name} must be an uncompressed P-256 public key in hex (130 characters starting with 04)`);
  }
  return { signerPublicKey: keys.signerPublicKey.toLowerCase(), encryptionPublicKey: keys.encryptionPublicKey.toLowerCase() };
}

/**
 * The constants module with every pinned key replaced. Throws when one of them is missing, so that an SDK release
 * that renames or moves a constant fails the build instead of silently trusting the hosted keys.
 */
export function rewritePinnedKeys(code: string, keys: StrongroomKeys): string {
  let rewritten = code;
  for (const [constant, key] of Object.entries(REPLACEMENTS)) {
    const declaration = new RegExp(`(\\b(?:const|var|let)\\s+${constant}\\s*=\\s*)(["'])[0-9a-fA-F]+\\2`);
    if (!declaration.test(rewritten)) throw new Error(`strongroom: ${constant} not found in @turnkey/crypto's constants module`);
    rewritten = rewritten.replace(declaration, (_match, head: string) => `${head}"${keys[key]}"`);
  }
  return rewritten;
}

/** The keys: as given, or fetched once from the server's `/public/v1/discovery/keys`. */
export async function resolveKeys(options: StrongroomSignerOptions): Promise<StrongroomKeys> {
  if (options.signerPublicKey || options.encryptionPublicKey) {
    return checkKeys({ signerPublicKey: options.signerPublicKey ?? "", encryptionPublicKey: options.encryptionPublicKey ?? "" });
  }
  if (!options.serverUrl) throw new Error("strongroom: pass serverUrl, or signerPublicKey and encryptionPublicKey");
  const url = new URL("/public/v1/discovery/keys", options.serverUrl);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`strongroom: ${url.href} answered HTTP ${response.status}`);
  return checkKeys((await response.json()) as StrongroomKeys);
}

export interface StrongroomSignerOptions {
  /** Strongroom's API URL; its discovery endpoint is read at build time when the keys are not given. */
  serverUrl?: string;
  signerPublicKey?: string;
  encryptionPublicKey?: string;
}
