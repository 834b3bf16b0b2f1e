import type { SealProvider, SealSettings } from "../../config.js";
import { ApiError, GrpcCode } from "../../errors.js";
import type { Database } from "../../store/database.js";
import { createKeyEncryptionKey } from "../key-encryption.js";
import { Keyring } from "./keyring.js";
import { createKeyring, readKeyRows, readSealRow, sealingVersionOf, type KeyRow, type SealRow } from "./keyring-rows.js";
import { localRootWrapper, type RootWrapper } from "./root-wrapper.js";

/** What GET /strongroom/v1/seal-status answers (Vault's fields: t, n and progress of the unseal shares). */
export interface SealStatus {
  type: SealProvider;
  /** A keyring exists. */
  initialized: boolean;
  sealed: boolean;
  /** Unseal shares needed: 0, as the file provider unseals when the process starts. */
  t: number;
  /** Unseal shares there are: 0 (file provider). */
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

const NO_HOOKS: CustodyHooks = { afterUnseal: async () => undefined, afterSeal: () => undefined };

const refused = (message: string) => new ApiError(GrpcCode.FAILED_PRECONDITION, message, "REQUEST_INVALID");

/**
 * One process's custody of the keyring: sealed or unsealed, the root wrapper while unsealed, and what it last read of
 * the keyring (versions, retirements, seal requests). The file provider unseals at open; a seal on demand drops every
 * key until the process restarts.
 */
export class Custody {
  readonly keyring = new Keyring();
  #seal: SealRow | undefined;
  #wrapper: RootWrapper | undefined;
  #ready = false;
  /** The database's time at this process's unseal: a seal request after it seals this process. */
  #unsealedAt: Date | undefined;
  /** Data keys by version as unwrapped, so a refresh unwraps only versions it has not seen. */
  #unwrapped = new Map<number, Uint8Array>();
  #listeners: ((sealed: boolean) => void)[] = [];

  private constructor(
    private readonly db: Database,
    private readonly settings: SealSettings,
    private readonly fileKey: () => Buffer,
    private readonly hooks: CustodyHooks,
  ) {}

  /**
   * Opens custody of the store's keyring with the configured provider and unseals it, creating the keyring on a store
   * that has none (a store from before the keyring: its values stay `v1:` until the background re-seal moves them).
   * A store whose keyring another provider wraps is refused, naming both.
   */
  static async open(db: Database, settings: SealSettings, fileKey: () => Buffer, hooks: CustodyHooks = NO_HOOKS): Promise<Custody> {
    const custody = new Custody(db, settings, fileKey, hooks);
    custody.#seal = await readSealRow(db);
    if (custody.#seal && custody.#seal.provider !== settings.provider) {
      throw new Error(
        `this store's keyring is wrapped by the ${custody.#seal.provider} seal provider, but STRONGROOM_SEAL=${settings.provider}: ` +
          `set STRONGROOM_SEAL=${custody.#seal.provider}`,
      );
    }
    await custody.#autoUnseal();
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
    return {
      type: this.settings.provider,
      initialized: this.#seal !== undefined,
      sealed: !this.#ready,
      t: 0,
      n: 0,
      progress: 0,
      ...(this.#ready ? { keyVersion: this.keyring.sealingVersion! } : {}),
    };
  }

  /** POST /strongroom/v1/unseal: the file provider takes no shares, it unseals when the process starts. */
  submitShare(): Promise<SealStatus> {
    return Promise.reject(
      refused(`this process unseals through its ${this.settings.provider} seal provider when it starts, not with shares: restart it`),
    );
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
    const wrapper = localRootWrapper(this.fileKey(), "file");
    try {
      if (!this.#seal) {
        await this.#checkLegacyValues();
        await createKeyring(this.db, wrapper, this.settings.provider);
        this.#seal = await readSealRow(this.db);
      }
      await this.#unsealWith(wrapper);
    } catch (error) {
      await wrapper.close();
      if (error instanceof WrongRootKey) throw new Error(`the keyring could not be opened: ${error.message}`);
      throw error;
    }
  }

  /**
   * A store from before the keyring holds values sealed straight under the file key: the key given must open them
   * before a keyring is wrapped under it (a wrong STRONGROOM_MASTER_KEY would otherwise start a keyring of its own).
   */
  async #checkLegacyValues(): Promise<void> {
    const [signer] = await this.db.query<{ sealed: string }>("SELECT sealed FROM server_secrets WHERE name = 'signer'");
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
      legacy: createKeyEncryptionKey(this.fileKey()),
    });
  }
}

/** The root key does not open the keyring's data keys. */
class WrongRootKey extends Error {}
