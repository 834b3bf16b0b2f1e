import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { OrganizationRow } from "../records/organization.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";
import type { ReadAhead, Statement } from "../store/read-alongside.js";
import type { ParsedTransactions } from "../crypto/signing/parsed-transactions.js";
import type { SignerRules } from "./signers.js";

export interface ActivityContext {
  /** The activity's transaction: everything the handler writes goes through it. */
  tx: Queryable;
  organization: OrganizationRow;
  activityId: string;
  /** The user who submitted the activity (its first vote). */
  requesterUserId: string;
  /** The root quorum's approvals allowed the activity (rather than a policy or the self-service permission). */
  byRootQuorum: boolean;
  /**
   * The session profile of the credential that submitted the activity (its first vote), if any: every API key
   * or session the activity creates carries it (src/auth/session-scope.ts).
   */
  requesterSessionProfileId: string | undefined;
  now: Date;
  services: Services;
  /**
   * What `validate` answered, when execution follows it at submission; undefined at a deciding approval, which
   * runs long after, so `execute` must then look again.
   */
  validated?: unknown;
  /** The request's parse of the transaction it signs, made once for all its steps (see ParsedTransactions). */
  parsedTransactions: ParsedTransactions;
  /**
   * Work outside the database (sending an email, say) that must happen only once the activity's
   * transaction has committed; a failure there is logged, never undoes the activity.
   */
  afterCommit(task: () => Promise<void>): void;
  /**
   * A write that must be kept even if the activity fails (a wrong OTP guess counts against the code):
   * it runs in the activity's transaction after the handler's writes were rolled back, before the
   * FAILED status is recorded. It is dropped when the activity completes or the request is refused (400).
   */
  keepOnFailure(write: (tx: Queryable) => Promise<void>): void;
}

/**
 * Whether a profile change is the user's word about themselves: they submitted it for their own user and it
 * ran on a policy's or the self-service permission. A change the root quorum approved is the organization's.
 */
export function assertedBySelf(ctx: Pick<ActivityContext, "requesterUserId" | "byRootQuorum">, userId: string): boolean {
  return ctx.requesterUserId === userId && !ctx.byRootQuorum;
}

/**
 * A credential an activity creates or changes, by how it authenticates later: a session or other expiring key
 * issued by a login or authentication activity (`session`, which proves only AUTHENTICATION_TYPE_SESSION), a
 * long-lived API key, a passkey, an OAuth provider (an OIDC token of it logs in and proves OAUTH), or an email
 * or phone number (a one-time code sent to it logs in and proves EMAIL_OTP / SMS_OTP).
 */
export type EnrolledFactor = "session" | "api-key" | "passkey" | "oauth-provider" | "contact";

/** What an activity enrolls (see ActivityDefinition.enrolls). */
export interface Enrollment {
  /** The user who gets the credentials; none when the activity finds the user itself (a login by token) or creates users. */
  userId?: string;
  factors: EnrolledFactor[];
  /** The session profile a login names (`sessionProfileId`). */
  sessionProfileId?: string;
}

/** What `validate` may use: committed reads, never a transaction. */
export interface ValidationContext {
  db: Queryable;
  services: Services;
  organization: OrganizationRow;
  requesterUserId: string;
  /** The public key whose API-key stamp authenticated the request (an API key or a session key); none for a passkey. */
  requesterApiPublicKey?: string;
  now: Date;
  /** The request's parse of the transaction it signs, which its decision and execution read again (see ParsedTransactions). */
  parsedTransactions: ParsedTransactions;
  /** What the definition's `readAhead` statement read with the authentication, when it was sent (see there). */
  readAhead?: ReadAhead;
}

/**
 * Paths of bearer secrets in an activity's parameters or result: a field name, `list[].field` for every item
 * of a list, dotted for nested objects (`rootUsers[].oauthProviders[].oidcToken`).
 */
export interface SecretFields {
  intent?: readonly string[];
  result?: readonly string[];
}

/**
 * What an activity acts on, for the policy keywords a condition (or a session profile's scope) reads beyond
 * `activity`: src/policy/keywords/index.ts draws them from the parameter named here. A target that does not
 * exist leaves its keyword absent.
 */
export type PolicyTarget =
  /** `wallet` (and `wallets`, of one): the wallet whose id this parameter holds. */
  | { wallet: string }
  /** `wallets`: the wallets whose ids this list parameter holds. */
  | { wallets: string }
  /** `private_key`: the private key whose id this parameter holds. */
  | { privateKey: string }
  /**
   * `wallet_account` with its `wallet`, or `private_key`: what the address (or private key id) in this
   * parameter names; `signs` adds the keywords of what is signed: `eth.tx`, `solana.tx`, `tron.tx` or
   * `bitcoin.tx` for a transaction, `eth.eip_712` or `eth.eip_7702_authorization` for a raw payload.
   */
  | { signer: string; signs?: "transaction" | "raw-payload" }
  /**
   * `secret`, one keyword set per item of this list parameter (a policy decides over each): the static
   * properties the request declares (an import) or those stored for its `secretId` (an export) or for the id
   * the item is (a deletion).
   */
  | { secrets: string; properties: "declared" | "stored" };

/**
 * One transfer an activity's transaction makes, in the asset's base units (wei, lamports, token units), as
 * velocity controls measure it (src/policy/velocity/). `chain` is the CAIP-2 reference (an EVM chain id, a
 * Solana genesis hash prefix) or undefined when the transaction does not say (a legacy Ethereum transaction
 * without a chain id; every Solana transaction); `token` is an ERC-20 contract (lowercase) or SPL mint, "" for
 * the native coin, undefined for an SPL Transfer that names no mint.
 */
export interface AssetTransfer {
  namespace: "eip155" | "solana";
  chain?: string;
  kind: "native" | "token";
  token: string | undefined;
  amount: bigint;
}

/** What every operation of `/public/v1/submit/<operation>` declares, activity or vote. */
export interface SubmitOperation<S extends TObject = TObject> extends SignerRules {
  operation: string;
  /** The versioned activity type the request must name. */
  type: string;
  intentKey: string;
  resultKey: string;
  /** The method name in @turnkey/sdk-server and @turnkey/http. */
  sdkMethod: string;
  summary: string;
  /** Policy resource and action (the policy language's activity.resource / activity.action). */
  resource: string;
  action: string;
  parameters: S;
  /** The result under `result.<resultKey>` (TypeBox): the OpenAPI document's response and the drift test read it. */
  result: TSchema;
}

/** One activity of `/public/v1/submit/<operation>`, declared in one file (approve/reject are votes: VoteDefinition). */
export interface ActivityDefinition<S extends TObject = TObject, P = unknown> extends SubmitOperation<S> {
  /**
   * The request fields a policy sees as `activity.params.<name>` (snake_case name -> parameter key): the
   * documented list for this operation. None when the operation exposes no parameters.
   */
  policyParams?: Record<string, string>;
  /** The wallet, account, key or secrets the activity acts on, for the policy keywords (see PolicyTarget). */
  policyTarget?: PolicyTarget;
  /**
   * What the activity's transaction moves, for velocity controls' chainAssetTransfer data source: measured
   * through the parsers the policy keywords use (src/policy/velocity/asset-transfers.ts). Counted when the
   * activity executes, never while it waits. None: the activity moves no asset.
   */
  assetTransfers?: (params: Static<S>, parsed: ParsedTransactions) => AssetTransfer[];
  /** Only the root quorum may perform it, whatever policies say. */
  rootQuorumOnly?: boolean;
  /**
   * It may subscribe a webhook endpoint to its organization's activity updates (creating or resuming one): its own
   * update is then delivered there too, so its subscribers are read after `execute`, never assumed from authentication.
   */
  addsSubscribers?: boolean;
  /**
   * Bearer secrets (verification tokens, one-time codes, OIDC tokens, read-only session tokens) the activity's
   * intent or result carries: stored as "<redacted>" wherever another member reads the activity (get_activity,
   * list_activities, the first vote's signed body, webhook payloads). Only the submitter's synchronous answer
   * carries the result's secrets; an activity that waits for consensus keeps its parameters sealed under the
   * key-encryption key until it runs (src/domains/activities/secret-fields.ts).
   */
  secretFields?: SecretFields;
  /**
   * The user whose own credentials or profile the activity manages; requesters may always do
   * that for themselves (the documented implicit permission).
   */
  selfServiceUserId?: (params: Static<S>, requesterUserId: string) => string | undefined;
  /**
   * The credentials the activity creates or changes, and whose: enrolling a factor on oneself must satisfy
   * every one of one's MFA policies (src/domains/mfa-policies/requirements.ts), and a scoped credential may
   * create only credentials that carry its profile (src/auth/session-scope.ts). None (or no factors): the
   * activity gives nobody a way to authenticate.
   */
  enrolls?: (params: Static<S>, requesterUserId: string) => Enrollment | undefined;
  /**
   * Authentication activities (OTP, email auth, OAuth login) that a parent organization's user may submit
   * for one of its sub-organizations, as the API documents; the parent's policies and root quorum decide.
   * Every other activity is refused to parent credentials (read-only access).
   */
  parentMayInitiate?: boolean;
  /**
   * Activities whose key is equal run one at a time: the engine takes a transaction-level advisory lock on
   * it before the handler's savepoint, so it is held until commit even when the handler fails (a lock
   * taken inside the savepoint would be released by its rollback, letting a waiting guess in early).
   */
  lockKey?: (params: Static<S>, tx: Queryable) => string | Promise<string>;
  /**
   * Input checks beyond the schema (formats, paths, keys, references to rows that must exist), run at
   * submission before the decision and outside any transaction, so that an activity that waits for consensus
   * is one its deciding approval can run. It reads only committed rows (`ctx.db`), writes nothing and makes no
   * outside calls; it refuses bad input with an ApiError (400). Checks on state the activity itself changes
   * (a name still free, a capacity) stay in `execute`: found only at execution, they fail the activity.
   */
  validate?(ctx: ValidationContext, params: Static<S>): Promise<unknown>;
  /**
   * A read `validate` makes, sent with the authentication's statement (on PostgreSQL in the same round trip), from the
   * organization the request names and its parameters as they arrived: not yet checked against the schema (it must
   * accept any value, answering nothing for what it cannot use), nor authenticated. Its rows reach `validate`
   * (`ctx.readAhead`) only once the request is authenticated in that very organization; otherwise they are dropped.
   * It must be one indexed lookup: on PostgreSQL a stamp that verifies against a key nobody registered still costs it,
   * with the authentication's own (a stamp that does not verify costs neither). The embedded store reads nothing ahead.
   */
  readAhead?: (organizationId: string, parameters: unknown) => Statement | undefined;
  /**
   * `execute` fails (or refuses) whenever `validate` would refuse, and never reads `ctx.validated`: then a submission
   * runs `validate` only when its answer matters, saving its reads on the common path. Allowed at once, the activity
   * goes straight to `execute`, and should that fail, `validate` runs in the same transaction and its refusal (400,
   * nothing written) replaces the failure; decided otherwise (denied, waiting), `validate` runs in the transaction
   * before anything is written. Either way the request is answered as if `validate` had run first. Only for a
   * definition without `prepare` or `fill`, whose steps run before the transaction.
   */
  validatedByExecute?: boolean;
  /**
   * Outside calls (redeeming an authorization code, fetching an issuer's keys, resolving a webhook host) and
   * CPU-heavy work (key generation, HD derivation) that must not run inside the activity's transaction; its
   * result is passed to `execute`. It runs only once the decision allows the activity — at submission, or at
   * the deciding approval of one that waited for consensus — never for a request that is denied or waits, and
   * once per activity: the pipeline claims the body's fingerprint first, so a resubmitted or concurrent twin
   * body, or a retried transaction, never runs it again. The same rule holds for CPU-only work. It writes
   * nothing and reads only committed rows through `services.db` (`execute` checks that what it read still
   * holds). What it throws is, at submission, the request's error (ApiError 400 for bad input); at the
   * deciding approval, the activity's failure.
   */
  prepare?(services: Services, params: Static<S>, organization: OrganizationRow): Promise<P>;
  /**
   * Fields the server fills in for the request before the decision (a transaction's nonce, gas and fees, a
   * Solana blockhash), read outside any transaction from a chain node and committed rows, so that policies decide
   * on what will actually be sent. Its answer replaces the parameters for the decision and `execute` (the stored
   * intent stays the body's own). It runs at submission after `validate`, again at each retry, and at a deciding
   * approval; a refusal it throws (ApiError) is the request's. When `execute` finds that what it read no longer
   * holds (another send took the nonce), it throws FilledFieldsChanged and the pipeline fills and decides again.
   */
  fill?(services: Services, params: Static<S>, organization: OrganizationRow): Promise<Record<string, unknown>>;
  /**
   * Earlier versions of this activity served at the same path (ACTIVITY_TYPE_ETH_SEND_TRANSACTION beside
   * ..._V2): the body's `type` picks one. The registry lists only this, the upstream API's current version.
   */
  earlierVersions?: ActivityDefinition[];
  /** Runs inside the activity's transaction; throws ApiError for a business failure. `prepared` is what `prepare` answered. */
  execute(ctx: ActivityContext, params: Static<S>, prepared: P): Promise<Record<string, unknown>>;
}

/** Thrown by `execute` when what `fill` read no longer holds: the pipeline fills, decides and executes again. */
export class FilledFieldsChanged extends Error {}

export function defineActivity<S extends TObject, P = undefined>(definition: ActivityDefinition<S, P>): ActivityDefinition {
  return definition as unknown as ActivityDefinition;
}
