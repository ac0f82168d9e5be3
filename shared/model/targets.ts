/**
 * Whom a change is for and what it writes to: the vocabulary the store's `commit` takes and the domain speaks.
 */

/**
 * Whose data a key holds: a merchant in one mode. Test and live data never share a partition (docs/api.md
 * "Credentials and modes"), so no list, counter, sequence or index mixes them. Stored records carry both fields, so a record
 * is its own owner. Live partitions are named by the merchant's id; test ones add `:test`.
 */
export interface Owner {
  merchant_id: string;
  livemode: boolean;
}

/** The stored things a change can write, by id: the key (and list keys) are built here, from keys.ts. */
export type Target =
  | { entity: 'payment'; id: string; owner: Owner }
  | { entity: 'refund'; id: string; paymentId: string; owner: Owner }
  | { entity: 'invoice'; id: string; owner: Owner }
  | { entity: 'subscription'; id: string; owner: Owner }
  /** the renewal of one period of a subscription (its state is in `state`, not `status`) */
  | { entity: 'subscription_period'; subscriptionId: string; periodStart: string }
  | { entity: 'dispute'; id: string; paymentId: string; providerReference: string; owner: Owner }
  /** which payment a provider's reference names (per connector account), written with the authorization */
  | { entity: 'payment_reference'; connectorId: string; reference: string }
  /** an inbound notification applied (its provider event id): created with the change, so none applies twice */
  | { entity: 'inbound'; connectorId: string; eventId: string }
  | { entity: 'settlement'; id: string; owner: Owner }
  /** the marker that makes the daily job settle an owner's currency at most once a day */
  | { entity: 'settlement_day'; owner: Owner; day: string; currency: string }
  /** `owner` lists the clock for its merchant when it is created */
  | { entity: 'test_clock'; id: string; owner?: Owner }
  | { entity: 'webhook'; id: string; owner: Owner }
  | { entity: 'payment_method'; id: string; owner: Owner }
  /** a customer's claim on one card (by its fingerprint): a second save of the card finds the first */
  | { entity: 'payment_method_card'; customerId: string; fingerprint: string }
  | { entity: 'customer'; id: string }
  | { entity: 'reconciliation_exception'; id: string; owner: Owner }
  /** how far the reconciliation of a connector account got */
  | { entity: 'reconciliation_run'; owner: Owner; connectorId: string }
  /** the owner's gapless invoice numbers: the last one given (see commitNumbered) */
  | { entity: 'invoice_counter'; owner: Owner }
  /** a merchant's profile, with the counts its caps are kept by */
  | { entity: 'merchant'; id: string }
  /** the merchant a sign-in e-mail belongs to: one per e-mail */
  | { entity: 'merchant_email'; email: string }
  /** `copy`: one of the item's routing copies (routing-copies.ts), not the item */
  | { entity: 'connector'; id: string; owner: Owner; copy?: number }
  | { entity: 'routing_rule'; id: string; owner: Owner; copy?: number }
  | { entity: 'api_key'; id: string; merchantId: string }
  /** one copy of the item authentication reads by the key's hash (keys.ts `API_KEY_HASH_COPIES`) */
  | { entity: 'api_key_hash'; keyHash: string; copy: number }
  /** a person, by the e-mail they sign in with (keys.ts: their e-mail's partition holds their memberships and invitations) */
  | { entity: 'user'; email: string }
  /** a user's membership of a merchant, with its role: in the merchant's partition (`merchantId`), or its copy in the user's (`email`) */
  | { entity: 'membership'; merchantId: string; userId: string }
  | { entity: 'membership_copy'; email: string; merchantId: string }
  /** an invitation to join a merchant: in the merchant's partition, or its copy in the invited e-mail's */
  | { entity: 'invitation'; merchantId: string; id: string }
  | { entity: 'invitation_copy'; email: string; id: string }
  /** a sign-in session, by its token's hash */
  | { entity: 'session'; tokenHash: string }
  /** a merchant's settings in one mode (one item, written whole or in part, created by its first change) */
  | { entity: 'settings'; owner: Owner }
  | { entity: 'payment_link'; id: string; owner: Owner }
  /** the place one payment holds on a payment link (its limit counts them), by the payment's id */
  | { entity: 'payment_link_place'; linkId: string; paymentId: string }
  /** an entry of the owner's audit log: what its indexes need (the actor's id, the action, the object's id) */
  | { entity: 'audit_entry'; id: string; owner: Owner; actorId: string; action: string; objectId?: string };

/**
 * An external side effect in flight on an item: `begin` writes it before the outside call (its id is the call's
 * idempotency key), the commit that records the answer finishes it. While its lease runs nobody else may start
 * one on the item; once the lease ends the reconciler (or a retried request) may take it over.
 */
export interface Operation {
  id: string;
  kind: OperationKind;
  lease_until: number;
  /** which provider, with which reference, for how much: what the reconciler needs to ask about it */
  provider?: string;
  /** the merchant's connector account the call goes through (absent: the built-in sandbox) */
  connector_id?: string;
  reference?: string;
  amount?: number;
  currency?: string;
  /** an authorization's attempt number (1 = first provider tried) */
  attempt?: number;
  /** an invoice send's channel and address: what the reconciler needs to send it again */
  channel?: string;
  to?: string;
  /**
   * the provider accepted the call and reports its outcome later (Adyen's `received`, a pending Stripe refund): the
   * operation stays on the item until a notification or the reconciler (at `lease_until`) settles it
   */
  awaiting?: boolean;
  /** an `authenticate` operation's end of the shopper's hour (its lease is shorter while a return asks the provider) */
  shopper_until?: number;
}
/**
 * `authenticate`: the shopper is authenticating at the provider (its lease: how long they may take); `renewal`: a
 * worker's claim on a subscription period (held in the period's own `claim` and `lease_until`)
 */
export type OperationKind =
  'authorize' | 'authenticate' | 'capture' | 'void' | 'refund' | 'invoice_send' | 'dispute_evidence' | 'dispute_accept' | 'renewal';
