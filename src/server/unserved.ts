import { ApiError, GrpcCode } from "../errors.js";

/**
 * The families of the public API that need parts of the hosted service a self-hosted server does not have, and
 * why. Each path of the upstream API that Strongroom does not serve belongs to one of them (UNSERVED_PATHS); a
 * test holds the table to the upstream swagger and to the paths of @turnkey/http 6.6.0's client
 * (test/docs/upstream-supplement.ts), so a path added upstream or served here cannot drift from it.
 */
export const UNSERVED_FAMILIES = {
  "verifiable-cloud": {
    title: "Verifiable Cloud apps, enclave deployments and boot proofs",
    reason:
      "they deploy and attest applications in the hosted service's AWS Nitro enclaves under QuorumOS; a self-hosted server has no enclave fleet to deploy to and no boot proofs to show",
  },
  swaps: {
    title: "Token swaps",
    reason:
      "quotes and executions go through the hosted service's swap aggregator and its fee accounts, which a self-hosted server does not have",
  },
  earn: {
    title: "Earn vaults",
    reason:
      "deposits, withdrawals and rewards (Merkl reward claims included) go through DeFi vault integrations and wrapper contracts that the hosted service operates",
  },
  "fiat-on-ramp": {
    title: "Fiat on-ramps",
    reason: "buying crypto with fiat needs accounts with payment providers (Coinbase, MoonPay and others) held by the hosted service",
  },
  "sending-transactions": {
    title: "EIP-7702 undelegation",
    reason:
      "Strongroom sends EVM and Solana transactions on the chains configured in CHAIN_RPC_URLS; EIP-7702 undelegation goes through the hosted Gas Station delegate, which a self-hosted server does not run",
  },
  spark: {
    title: "Spark (Bitcoin layer 2)",
    reason: "Spark transfers and Lightning receives are co-signed (FROST) with the Spark operators the hosted service integrates with",
  },
  "email-events": {
    title: "Email delivery events",
    reason:
      "delivery events come from the hosted service's email provider; a self-hosted server sends mail through your SMTP server and receives no delivery events from it",
  },
  "hosted-internals": {
    title: "The hosted service's internal endpoints",
    reason:
      "feature flags, rate-limit tests and the code generator's anchor belong to the hosted service's own operation, not to the public API",
  },
} as const satisfies Record<string, { title: string; reason: string }>;

export type UnservedFamily = keyof typeof UNSERVED_FAMILIES;

const submit = (operation: string) => `/public/v1/submit/${operation}`;
const query = (operation: string) => `/public/v1/query/${operation}`;

/** Every path of the upstream API that Strongroom does not serve, with its family. */
export const UNSERVED_PATHS: Record<string, UnservedFamily> = {
  [query("get_app_status")]: "verifiable-cloud",
  [query("get_boot_proof")]: "verifiable-cloud",
  [query("get_latest_boot_proof")]: "verifiable-cloud",
  [query("get_tvc_app")]: "verifiable-cloud",
  [query("get_tvc_deployment")]: "verifiable-cloud",
  [query("get_tvc_deployment_debug_logs")]: "verifiable-cloud",
  [query("get_tvc_deployment_provisioning_details")]: "verifiable-cloud",
  [query("get_tvc_qos_versions")]: "verifiable-cloud",
  [query("list_tvc_app_deployments")]: "verifiable-cloud",
  [query("list_tvc_apps")]: "verifiable-cloud",
  [query("validate_tvc_image")]: "verifiable-cloud",
  [submit("create_tvc_app")]: "verifiable-cloud",
  [submit("create_tvc_deployment")]: "verifiable-cloud",
  [submit("create_tvc_manifest_approvals")]: "verifiable-cloud",
  [submit("create_tvc_operator")]: "verifiable-cloud",
  [submit("create_tvc_quorum_key")]: "verifiable-cloud",
  [submit("delete_tvc_app_and_deployments")]: "verifiable-cloud",
  [submit("delete_tvc_deployment")]: "verifiable-cloud",
  [submit("post_tvc_quorum_key_share")]: "verifiable-cloud",
  [submit("re_encrypt_tvc_quorum_key_share")]: "verifiable-cloud",
  [submit("restore_tvc_deployment")]: "verifiable-cloud",
  [submit("set_tvc_app_live_deployment")]: "verifiable-cloud",
  [query("list_tvc_operators")]: "verifiable-cloud",
  [query("list_tvc_quorum_keys")]: "verifiable-cloud",

  [query("get_swap_status")]: "swaps",
  [submit("claim_swap_fees")]: "swaps",
  [submit("create_swap_quote")]: "swaps",
  [submit("execute_swap")]: "swaps",
  [submit("upsert_swap_config")]: "swaps",

  [query("get_claim_earn_fees_status")]: "earn",
  [query("get_earn_deploy_status")]: "earn",
  [query("get_earn_deposit_status")]: "earn",
  [query("get_earn_withdraw_status")]: "earn",
  [query("list_earn_enabled_vaults")]: "earn",
  [query("list_earn_positions")]: "earn",
  [query("list_earn_vaults")]: "earn",
  [submit("claim_earn_fees")]: "earn",
  [submit("earn_deploy_wrapper")]: "earn",
  [submit("earn_deposit")]: "earn",
  [submit("earn_set_wrapper_state")]: "earn",
  [submit("earn_withdraw")]: "earn",
  [query("get_earn_claim_rewards_status")]: "earn",
  [query("list_earn_rewards")]: "earn",
  [submit("earn_claim_rewards")]: "earn",

  [query("get_onramp_transaction_status")]: "fiat-on-ramp",
  [query("list_fiat_on_ramp_credentials")]: "fiat-on-ramp",
  [submit("create_fiat_on_ramp_credential")]: "fiat-on-ramp",
  [submit("delete_fiat_on_ramp_credential")]: "fiat-on-ramp",
  [submit("init_fiat_on_ramp")]: "fiat-on-ramp",
  [submit("update_fiat_on_ramp_credential")]: "fiat-on-ramp",

  [submit("eth_undelegate_7702")]: "sending-transactions",

  [submit("spark_claim_transfer")]: "spark",
  [submit("spark_prepare_lightning_receive")]: "spark",
  [submit("spark_prepare_transfer")]: "spark",
  [submit("spark_sign_frost")]: "spark",

  [query("list_email_events")]: "email-events",

  "/tkhq/api/v1/noop-codegen-anchor": "hosted-internals",
  "/tkhq/api/v1/refresh_feature_flags": "hosted-internals",
  "/tkhq/api/v1/test_rate_limits": "hosted-internals",
};

/** The refusal of an unserved path: 501 UNIMPLEMENTED, naming the operation, its family and why. */
export function unservedRefusal(path: string, family: UnservedFamily): ApiError {
  const { title, reason } = UNSERVED_FAMILIES[family];
  const operation = path.slice(path.lastIndexOf("/") + 1);
  return new ApiError(
    GrpcCode.UNIMPLEMENTED,
    `${operation} is not available on a self-hosted Strongroom server: ${title} — ${reason}`,
    "UNIMPLEMENTED",
  );
}
