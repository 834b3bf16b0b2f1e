import type { SealProvider, SealSettings } from "../../config.js";
import { ApiError, GrpcCode } from "../../errors.js";
import type { Database, Queryable } from "../../store/database.js";
import { createKeyEncryptionKey } from "../key-encryption.js";
import { Keyring, SealedError } from "./keyring.js";
import { createKeyring, readKeyRows, readSealRow, sealingVersionOf, type KeyRow, type SealRow } from "./keyring-rows.js";
import { localRootWrapper, type RootWrapper } from "./root-wrapper.js";
import { checkSharing, combineShares, parseShare, shareIndex, splitSecret } from "./shares.js";
import { createRecoveryKey, wrapForRecovery } from "./recovery.js";
import { openProviderWrapper } from "./providers.js";
import { randomBytes } from "node:crypto";

/** What GET /strongroom/v1/seal-status answers (Vault's fields: t, n and progress of the unseal shares). */
export interface SealStatus {
  type: SealProvider;
  /** A keyring exists (Shamir: `strongroom init --key-shares` has run). */
  initialized: boolean;
  sealed: boolean;
  /** Unseal shares needed (Shamir); 0 with the providers that unseal when the process starts (file, pkcs11, awskms). */
  t: number;
  /** Unseal shares printed at init (Shamir); 0 with the other providers. */
  n: number;
  /** Unseal shares given so far towards `t`. */
  progress: number;
  /** The data key version new values are sealed under (unsealed only). */
  keyVersion?: number;
}

export interface CustodyHooks {
  /** Runs once the keyring holds its keys, before the process counts as unsealed (loads the server's own keys). */
  afterUnseal(keyring: Keyring): Promise<void>;
  /** Runs when the process seals again (drops the server's own keys). */
  afterSeal(): void;
}

export interface KeyringInitOptions {
  /** Shamir: the root key's shares and threshold. */
  keyShares?: { shares: number; threshold: number };
  /** Any provider: a recovery key's shares and threshold (its private half exists only as these shares). */
  recovery?: { shares: number; threshold: number };
}

/** What init prints once. */
export interface KeyringShares {
  keyShares?: string[];
  keyThreshold?: number;
  recoveryShares?: string[];
  recoveryThreshold?: number;
}

const NO_HOOKS: CustodyHooks = { afterUnseal: async () => undefined, afterSeal: () => undefined };

const isAutoUnseal = (provider: SealProvider) => provider !== "shamir";

const invalid = (message: string) =>
  new ApiError(GrpcCode.INVALID_ARGUMENT, message, "REQUEST_INVALID", [{ field: "key", description: message }]);
const WRONG_COMBINATION =
  "the key shares given do not combine into this store's root key (a share is wrong, altered or from another store): " +
  "the unseal progress is reset; give the shares again";
const refused = (message: string) => new ApiError(GrpcCode.FAILED_PRECONDITION, message, "REQUEST_INVALID");

/**
 * One process's custody of the keyring: sealed or unsealed, the unseal shares given so far, the root wrapper while
 * unsealed, and what it last read of the keyring (versions, retirements, seal requests). The auto-unseal providers
 * (file, pkcs11, awskms) unseal at open; Shamir stays sealed until a threshold of shares arrives. A seal on demand drops
 * every key: an auto-unseal provider then unseals when the process restarts, Shamir when a threshold of shares arrives
 * again.
 */
export class Custody {
  readonly keyring = new Keyring();
  #seal: SealRow | undefined;
  #wrapper: RootWrapper | undefined;
  #shares: Uint8Array[] = [];
  #ready = false;
  /** The database's time at this process's unseal: a seal request after it seals this process. */
  #unsealedAt: Date | undefined;
  /** Data keys by version as unwrapped, so a refresh unwraps only versions it has not seen. */
  #unwrapped = new Map<number, Uint8Array>();
  #unsealing: Promise<unknown> = Promise.resolve();
  #listeners: ((sealed: boolean) => void)[] = [];

  private constructor(
    private readonly db: Database,
    private readonly settings: SealSettings,
    private readonly fileKey: () => Buffer,
    private readonly hooks: CustodyHooks,
  ) {}

  /**
   * Opens custody of the store's keyring with the configured provider. An auto-unseal provider unseals now, creating
   * the keyring on a store that has none (and, with pkcs11, the root key in a token that has none; a store from before
   * the keyring keeps its `v1:` values until the background re-seal moves them). Shamir stays sealed. A store whose
   * keyring another provider wraps is refused, naming both.
   */
  static async open(db: Database, settings: SealSettings, fileKey: () => Buffer, hooks: CustodyHooks = NO_HOOKS): Promise<Custody> {
    const custody = new Custody(db, settings, fileKey, hooks);
    custody.#seal = await readSealRow(db);
    if (custody.#seal && custody.#seal.provider !== settings.provider) {
      throw new Error(
        `this store's keyring is wrapped by the ${custody.#seal.provider} seal provider, but STRONGROOM_SEAL=${settings.provider}: ` +
          `set STRONGROOM_SEAL=${custody.#seal.provider} (to move it to another provider, see "The keyring" in docs/operations.md)`,
      );
    }
    if (isAutoUnseal(settings.provider)) await custody.#autoUnseal();
    return custody;
  }

  /** Called with `true` when this process seals, `false` when it unseals (not for the unseal at open). */
  onChange(listener: (sealed: boolean) => void): void {
    this.#listeners.push(listener);
  }

  get sealed(): boolean {
    return !this.#ready;
  }

  get provider(): SealProvider {
    return this.settings.provider;
  }

  status(): SealStatus {
    const seal = this.#seal;
    return {
      type: this.settings.provider,
      initialized: seal !== undefined,
      sealed: !this.#ready,
      t: seal?.key_threshold ?? 0,
      n: seal?.key_shares ?? 0,
      progress: this.#shares.length,
      ...(this.#ready ? { keyVersion: this.keyring.sealingVersion! } : {}),
    };
  }

  /**
   * One unseal share (Shamir). At the threshold the shares are combined and the root key must open every data key
   * version: otherwise the combination is refused and the progress starts again.
   */
  async submitShare(text: string): Promise<SealStatus> {
    const next = this.#unsealing.then(() => this.#submitShare(text));
    this.#unsealing = next.catch(() => undefined);
    return next;
  }

  async #submitShare(text: string): Promise<SealStatus> {
    if (isAutoUnseal(this.settings.provider)) {
      throw refused(`this process unseals through its ${this.settings.provider} seal provider when it starts, not with shares: restart it`);
    }
    this.#seal ??= await readSealRow(this.db);
    const seal = this.#seal;
    if (!seal?.key_threshold) throw refused("the keyring is not initialized: run `strongroom init --key-shares N --key-threshold T` first");
    if (this.#ready) return this.status();
    let share: Uint8Array;
    try {
      share = parseShare(text);
    } catch (error) {
      throw invalid((error as Error).message);
    }
    const sameIndex = this.#shares.find((s) => shareIndex(s) === shareIndex(share));
    if (sameIndex && Buffer.from(sameIndex).equals(share)) throw invalid("this key share was already given: give another one");
    if (sameIndex) {
      // Two different shares at one x coordinate cannot be of one split: a wrong combination, whatever else is given.
      this.resetProgress();
      throw invalid(WRONG_COMBINATION);
    }
    this.#shares.push(share);
    if (this.#shares.length < seal.key_threshold) return this.status();
    const shares = this.#shares;
    this.#shares = [];
    let rootKey: Uint8Array;
    try {
      rootKey = await combineShares(shares);
    } catch {
      throw invalid(WRONG_COMBINATION);
    } finally {
      for (const s of shares) s.fill(0);
    }
    const wrapper = localRootWrapper(rootKey, "shamir");
    rootKey.fill(0);
    try {
      await this.#unsealWith(wrapper);
    } catch (error) {
      await wrapper.close();
      if (error instanceof WrongRootKey) throw invalid(WRONG_COMBINATION);
      throw error;
    }
    return this.status();
  }

  /**
   * `strongroom init`'s part: with Shamir, creates the keyring under a fresh root key split into `keyShares` (and
   * unseals this process with it); with any provider, `recovery` adds a recovery key to the keyring (every version
   * wrapped to it). Answers the shares, to be printed once: the root and recovery keys themselves are never stored.
   */
  async initialize(options: KeyringInitOptions): Promise<KeyringShares> {
    const answer: KeyringShares = {};
    if (this.settings.provider === "shamir") {
      if (!options.keyShares) throw new Error("STRONGROOM_SEAL=shamir: give --key-shares and --key-threshold to create the keyring");
      this.#seal ??= await readSealRow(this.db);
      if (this.#seal) throw new Error("the keyring exists already: its key shares were printed when it was created (they are not stored)");
      const { shares, threshold } = options.keyShares;
      checkSharing(shares, threshold, "--key-shares", "--key-threshold");
      await refuseValuesBeforeKeyring(this.db, "shamir");
      const rootKey = randomBytes(32);
      answer.keyShares = await splitSecret(rootKey, shares, threshold);
      answer.keyThreshold = threshold;
      const wrapper = localRootWrapper(rootKey, "shamir");
      rootKey.fill(0);
      await createKeyring(this.db, wrapper, { provider: "shamir", keyShares: { shares, threshold } });
      this.#seal = await readSealRow(this.db);
      await this.#unsealWith(wrapper);
    } else if (options.keyShares) {
      throw new Error(`--key-shares is for STRONGROOM_SEAL=shamir; with ${this.settings.provider}, --recovery-shares adds a recovery key`);
    }
    if (options.recovery) {
      if (!this.#ready) throw new SealedError("adding a recovery key");
      const { shares, threshold } = options.recovery;
      checkSharing(shares, threshold, "--recovery-shares", "--recovery-threshold");
      this.#seal = await readSealRow(this.db);
      if (this.#seal?.recovery_public_key)
        throw new Error("the keyring has a recovery key already: its shares were printed when it was added");
      const recovery = await createRecoveryKey(shares, threshold);
      const rows = await readKeyRows(this.db);
      await this.db.transaction(async (tx) => {
        for (const row of rows) {
          const dataKey = this.#unwrapped.get(row.version)!;
          await tx.query("UPDATE keyring SET recovery_wrapped_key = $2 WHERE version = $1", [
            row.version,
            await wrapForRecovery(dataKey, row.version, recovery.publicKeyHex),
          ]);
        }
        await tx.query("UPDATE keyring_seal SET recovery_public_key = $1, recovery_shares = $2, recovery_threshold = $3", [
          recovery.publicKeyHex,
          shares,
          threshold,
        ]);
      });
      this.#seal = await readSealRow(this.db);
      answer.recoveryShares = recovery.shares;
      answer.recoveryThreshold = threshold;
    }
    return answer;
  }

  /** Forgets the shares given so far (Vault's unseal reset). */
  resetProgress(): SealStatus {
    for (const share of this.#shares) share.fill(0);
    this.#shares = [];
    return this.status();
  }

  /** Drops every key from memory (the data keys, the server's own keys, the root key). */
  async seal(): Promise<void> {
    if (!this.#ready && !this.#wrapper) return;
    this.#ready = false;
    this.keyring.drop();
    this.#unwrapped.clear();
    this.hooks.afterSeal();
    const wrapper = this.#wrapper;
    this.#wrapper = undefined;
    this.#unsealedAt = undefined;
    await wrapper?.close();
    for (const listener of this.#listeners) listener(true);
  }

  /**
   * Reads the keyring again (a version added or retired by another process) and the seal requests: a request made
   * after this process unsealed seals it. What the background loop runs every STRONGROOM_KEYRING_POLL_MS.
   * Answers whether this process is (still) unsealed.
   */
  async refresh(): Promise<boolean> {
    if (!this.#ready || !this.#wrapper) return false;
    const [request] = await this.db.query("SELECT 1 FROM seal_requests WHERE requested_at > $1 LIMIT 1", [this.#unsealedAt]);
    if (request) {
      await this.seal();
      return false;
    }
    await this.#install(await readKeyRows(this.db), this.#wrapper);
    return true;
  }

  /** The wrapper of the unsealed keyring (for rotation); undefined while sealed. */
  get wrapper(): RootWrapper | undefined {
    return this.#ready ? this.#wrapper : undefined;
  }

  async #autoUnseal(): Promise<void> {
    let wrapper: RootWrapper | undefined;
    try {
      wrapper = this.#seal ? await openProviderWrapper(this.settings, this.fileKey, { create: false }) : await this.#createKeyring();
      await this.#unsealWith(wrapper);
    } catch (error) {
      await wrapper?.close();
      if (error instanceof WrongRootKey) throw new Error(`the keyring could not be opened: ${error.message}`);
      throw error;
    }
  }

  /**
   * The keyring of a store that has none, under the provider's root. Processes of a cluster may start together on an
   * empty store: they take turns to open the provider's root (a PKCS#11 token without the key gets one, so one only),
   * then each wraps a version 1 outside any transaction (a KMS wraps over the network) and the first insert wins;
   * every process goes on with what won.
   */
  async #createKeyring(): Promise<RootWrapper> {
    if (this.settings.provider === "file") await this.#checkLegacyValues(this.db);
    else await refuseValuesBeforeKeyring(this.db, this.settings.provider);
    const wrapper = await this.db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('strongroom:create-keyring', 0))");
      return openProviderWrapper(this.settings, this.fileKey, { create: true });
    });
    try {
      await createKeyring(this.db, wrapper, { provider: this.settings.provider });
      this.#seal = await readSealRow(this.db);
      return wrapper;
    } catch (error) {
      await wrapper.close();
      throw error;
    }
  }

  /**
   * A store from before the keyring holds values sealed straight under the file key: the key given must open them
   * before a keyring is wrapped under it (a wrong STRONGROOM_MASTER_KEY would otherwise start a keyring of its own).
   */
  async #checkLegacyValues(db: Queryable): Promise<void> {
    const [signer] = await db.query<{ sealed: string }>("SELECT sealed FROM server_secrets WHERE name = 'signer'");
    if (signer?.sealed.startsWith("v1:")) createKeyEncryptionKey(this.fileKey()).open(signer.sealed, "server-key:signer");
  }

  async #unsealWith(wrapper: RootWrapper): Promise<void> {
    const rows = await readKeyRows(this.db);
    if (rows.length === 0) throw new Error("the keyring holds no key: the store was not initialized");
    try {
      await this.#install(rows, wrapper);
    } catch (error) {
      this.keyring.drop();
      this.#unwrapped.clear();
      throw new WrongRootKey((error as Error).message);
    }
    this.#wrapper = wrapper;
    const [{ now } = { now: new Date() }] = await this.db.query<{ now: Date }>("SELECT now() AS now");
    this.#unsealedAt = now;
    await this.hooks.afterUnseal(this.keyring);
    this.#ready = true;
    for (const listener of this.#listeners) listener(false);
  }

  async #install(rows: KeyRow[], wrapper: RootWrapper): Promise<void> {
    const keys = new Map<number, Uint8Array>();
    for (const row of rows) keys.set(row.version, this.#unwrapped.get(row.version) ?? (await wrapper.unwrap(row.wrapped_key, row.version)));
    this.#unwrapped = keys;
    this.keyring.install({
      keys,
      sealingVersion: sealingVersionOf(rows),
      ...(this.settings.provider === "file" ? { legacy: createKeyEncryptionKey(this.fileKey()) } : {}),
    });
  }
}

/**
 * Values sealed straight under the master key (`v1:`, before the keyring) open only with the file provider: a store
 * holding them is moved into a keyring by the file provider first, and then to another provider by `keyring recover`.
 */
async function refuseValuesBeforeKeyring(db: Queryable, provider: SealProvider): Promise<void> {
  const [legacy] = await db.query("SELECT 1 FROM server_secrets WHERE sealed LIKE 'v1:%' LIMIT 1");
  if (legacy)
    throw new Error(
      "this store holds values from before the keyring, sealed under the master key: start it once with STRONGROOM_SEAL=file " +
        `(which moves them into a keyring), then \`strongroom keyring recover\` moves that keyring to ${provider}`,
    );
}

/** The root key (from a provider or from shares) does not open the keyring's data keys. */
class WrongRootKey extends Error {}
