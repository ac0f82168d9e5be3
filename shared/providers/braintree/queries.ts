/**
 * The GraphQL documents the Braintree connector sends, as constants (no query is built from input: values travel only
 * as variables). Each one is checked against Braintree's published schema
 * (`infra/local/fakes/contracts/braintree-schema.graphql`) by the connector tests and executed against it by the fake.
 * Deprecated fields are not used (`processorResponse` on Transaction: the status events carry it).
 */

/**
 * What the connector reads of every transaction: enough to resolve its state, its decline, its card on file and the
 * card network's id of the authorization.
 */
const TRANSACTION_FIELDS = /* GraphQL */ `
  fragment TransactionFields on Transaction {
    id
    orderId
    status
    merchantAccountId
    amount {
      value
      currencyCode
    }
    paymentMethod {
      id
      usage
    }
    paymentMethodSnapshot {
      ... on CreditCardTransactionDetails {
        networkTransactionId
      }
    }
    statusHistory {
      status
      ... on ProcessorDeclinedEvent {
        declineType
        processorResponse {
          legacyCode
          message
        }
      }
      ... on GatewayRejectedEvent {
        gatewayRejectionReason
        processorResponse {
          legacyCode
          message
        }
      }
      ... on FailedEvent {
        processorResponse {
          legacyCode
          message
        }
      }
    }
  }
`;

/** What the connector reads of a dispute: enough for a `ProviderChange`. */
const DISPUTE_FIELDS = /* GraphQL */ `
  fragment DisputeFields on Dispute {
    id
    status
    type
    amountDisputed {
      value
      currencyCode
    }
    responseDeadline
    replyByDate
    processorResponse {
      reason
    }
    transaction {
      id
    }
  }
`;

/** verify: who these keys act for, and (when configured) the merchant accounts our currencies map to. */
export const VERIFY = /* GraphQL */ `
  query VerifyCredentials($accountIds: [String!], $checkAccounts: Boolean!) {
    viewer {
      merchant {
        id
        merchantAccounts(input: { id: { in: $accountIds } }) @include(if: $checkAccounts) {
          edges {
            node {
              id
              currencyCode
              status
            }
          }
        }
      }
    }
  }
`;

/** authorize without a merchant account per currency: the currency of the default account, read once per connector. */
export const DEFAULT_MERCHANT_ACCOUNT = /* GraphQL */ `
  query DefaultMerchantAccount {
    viewer {
      merchant {
        merchantAccounts(first: 50) {
          edges {
            node {
              id
              currencyCode
              isDefault
            }
          }
        }
      }
    }
  }
`;

/** authorize, step 1: the raw card becomes a single-use payment method (no money moves). */
export const TOKENIZE_CREDIT_CARD = /* GraphQL */ `
  mutation TokenizeCreditCard($input: TokenizeCreditCardInput!) {
    tokenizeCreditCard(input: $input) {
      clientMutationId
      paymentMethod {
        id
        usage
      }
    }
  }
`;

/**
 * authorize, step 2: authorization only (no settlement). Our idempotency key is the transaction's `orderId` (searchable)
 * and the `clientMutationId`; `vaultPaymentMethodAfterTransacting` keeps the card for renewals, `paymentInitiator`
 * marks the first and the merchant-initiated charges of a card on file.
 */
export const AUTHORIZE_PAYMENT_METHOD = /* GraphQL */ `
  mutation AuthorizePaymentMethod($input: AuthorizePaymentMethodInput!) {
    authorizePaymentMethod(input: $input) {
      clientMutationId
      transaction {
        ...TransactionFields
      }
    }
  }
  ${TRANSACTION_FIELDS}
`;

/**
 * authorize, step 2 of a merchant-initiated charge of a raw card (kept in our vault, not Braintree's): the same
 * authorization with `options.externalVault` (VAULTED, the series' first network transaction id), so Braintree flags
 * it as a stored-credential charge.
 */
export const AUTHORIZE_CREDIT_CARD = /* GraphQL */ `
  mutation AuthorizeCreditCard($input: AuthorizeCreditCardInput!) {
    authorizeCreditCard(input: $input) {
      clientMutationId
      transaction {
        ...TransactionFields
      }
    }
  }
  ${TRANSACTION_FIELDS}
`;

/** lookup / reverse: the transactions created under our key. */
export const SEARCH_BY_ORDER_ID = /* GraphQL */ `
  query TransactionsByOrderId($orderId: String!) {
    search {
      transactions(input: { orderId: { is: $orderId } }, first: 10) {
        edges {
          node {
            ...TransactionFields
          }
        }
      }
    }
  }
  ${TRANSACTION_FIELDS}
`;

/** capture / void / refund: the transaction as it stands, with its refunds (a read of the record, not of the search index). */
export const TRANSACTION_BY_ID = /* GraphQL */ `
  query TransactionById($id: ID!) {
    node(id: $id) {
      ... on Transaction {
        ...TransactionFields
        refunds {
          id
          orderId
          status
          amount {
            value
          }
        }
      }
    }
  }
  ${TRANSACTION_FIELDS}
`;

/** capture (partial allowed): a transaction is captured once; a second capture is refused by its status. */
export const CAPTURE_TRANSACTION = /* GraphQL */ `
  mutation CaptureTransaction($input: CaptureTransactionInput!) {
    captureTransaction(input: $input) {
      clientMutationId
      transaction {
        id
        status
        amount {
          value
        }
      }
    }
  }
`;

/** void / reverse: voids an authorized (or not yet settled) transaction; on a settled one it would refund it all. */
export const REVERSE_TRANSACTION = /* GraphQL */ `
  mutation ReverseTransaction($input: ReverseTransactionInput!) {
    reverseTransaction(input: $input) {
      clientMutationId
      reversal {
        __typename
        ... on Transaction {
          id
          status
        }
        ... on Refund {
          id
          status
        }
      }
    }
  }
`;

/** refund (partial, several): our key is the refund's `orderId`, found again on the transaction's `refunds`. */
export const REFUND_TRANSACTION = /* GraphQL */ `
  mutation RefundTransaction($input: RefundTransactionInput!) {
    refundTransaction(input: $input) {
      clientMutationId
      refund {
        id
        orderId
        status
        amount {
          value
        }
      }
    }
  }
`;

/** removeToken: the multi-use payment method leaves Braintree's vault (it can no longer be charged). */
export const DELETE_PAYMENT_METHOD = /* GraphQL */ `
  mutation DeletePaymentMethodFromVault($input: DeletePaymentMethodFromVaultInput!) {
    deletePaymentMethodFromVault(input: $input) {
      clientMutationId
    }
  }
`;

/** changesOf: the transaction's status (with why a settlement was declined), its refunds and its disputes. */
export const TRANSACTION_CHANGES = /* GraphQL */ `
  query TransactionChanges($id: ID!) {
    node(id: $id) {
      ... on Transaction {
        id
        status
        amount {
          value
          currencyCode
        }
        statusHistory {
          status
          ... on SettlementDeclinedEvent {
            processorResponse {
              legacyCode
              message
            }
          }
        }
        refunds {
          id
          orderId
          status
          amount {
            value
            currencyCode
          }
          statusHistory {
            status
            ... on SettlementDeclinedEvent {
              processorResponse {
                legacyCode
                message
              }
            }
          }
        }
        disputes {
          ...DisputeFields
        }
      }
    }
  }
  ${DISPUTE_FIELDS}
`;

/** submitDisputeEvidence / acceptDispute: the dispute as it stands (an earlier call whose answer was lost shows here). */
export const DISPUTE_BY_ID = /* GraphQL */ `
  query DisputeById($id: ID!) {
    node(id: $id) {
      ... on Dispute {
        ...DisputeFields
        evidence {
          id
          ... on DisputeTextEvidence {
            content
          }
        }
      }
    }
  }
  ${DISPUTE_FIELDS}
`;

/** One piece of the merchant's text evidence ("field: text"); Braintree sends it to the processor on finalize. */
export const CREATE_DISPUTE_TEXT_EVIDENCE = /* GraphQL */ `
  mutation CreateDisputeTextEvidence($input: CreateDisputeTextEvidenceInput!) {
    createDisputeTextEvidence(input: $input) {
      clientMutationId
      evidence {
        id
        content
      }
    }
  }
`;

/** Submits the evidence added so far: the dispute leaves OPEN (Braintree: DISPUTED). */
export const FINALIZE_DISPUTE = /* GraphQL */ `
  mutation FinalizeDispute($input: FinalizeDisputeInput!) {
    finalizeDispute(input: $input) {
      clientMutationId
      dispute {
        id
        status
      }
    }
  }
`;

/** The merchant does not contest the dispute (only an OPEN one can be accepted). */
export const ACCEPT_DISPUTE = /* GraphQL */ `
  mutation AcceptDispute($input: AcceptDisputeInput!) {
    acceptDispute(input: $input) {
      clientMutationId
      dispute {
        id
        status
      }
    }
  }
`;

/** Every document, by name (the connector tests validate each against the schema). */
export const DOCUMENTS = {
  VERIFY,
  DEFAULT_MERCHANT_ACCOUNT,
  TOKENIZE_CREDIT_CARD,
  AUTHORIZE_PAYMENT_METHOD,
  AUTHORIZE_CREDIT_CARD,
  SEARCH_BY_ORDER_ID,
  TRANSACTION_BY_ID,
  CAPTURE_TRANSACTION,
  REVERSE_TRANSACTION,
  REFUND_TRANSACTION,
  TRANSACTION_CHANGES,
  DISPUTE_BY_ID,
  CREATE_DISPUTE_TEXT_EVIDENCE,
  FINALIZE_DISPUTE,
  ACCEPT_DISPUTE,
} as const;
