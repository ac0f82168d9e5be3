/**
 * The GraphQL documents reconciliation sends (payouts.ts), checked against Braintree's published schema like the
 * connector's (queries.ts): what settled on a day, what was refunded and disputed, and the day's fee report.
 */

/** What a settled transaction or refund brings to a day's settlement: its amount, when it settled, what was disbursed. */
const SETTLED_FIELDS = /* GraphQL */ `
  fragment SettledFields on Payment {
    id
    legacyId
    merchantAccountId
    amount {
      value
      currencyCode
    }
    statusHistory {
      status
      timestamp
    }
    ... on Transaction {
      disbursementDetails {
        ...Disbursed
      }
    }
    ... on Refund {
      disbursementDetails {
        ...Disbursed
      }
    }
  }
  fragment Disbursed on DisbursementDetails {
    date
    amount {
      value
      currencyCode
    }
  }
`;

/** The transactions that settled within a day (`statusTransition.settledAt`), of the connector's merchant accounts. */
export const SETTLED_TRANSACTIONS = /* GraphQL */ `
  query SettledTransactions($input: TransactionSearchInput!, $after: String) {
    search {
      transactions(input: $input, first: 50, after: $after) {
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            ...SettledFields
          }
        }
      }
    }
  }
  ${SETTLED_FIELDS}
`;

/** The refunds that settled within a day, each with the transaction it refunds. */
export const SETTLED_REFUNDS = /* GraphQL */ `
  query SettledRefunds($input: RefundSearchInput!, $after: String) {
    search {
      refunds(input: $input, first: 50, after: $after) {
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            ...SettledFields
            refundedTransaction {
              id
            }
          }
        }
      }
    }
  }
  ${SETTLED_FIELDS}
`;

/** The disputes received on a day (`receivedDate`), on transactions of the connector's merchant accounts. */
export const RECEIVED_DISPUTES = /* GraphQL */ `
  query ReceivedDisputes($input: DisputeSearchInput!, $after: String) {
    search {
      disputes(input: $input, first: 50, after: $after) {
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            createdAt
            amountDisputed {
              value
              currencyCode
            }
            transaction {
              id
              merchantAccountId
            }
          }
        }
      }
    }
  }
`;

/** Where the day's payment-level fee report (CSV) of a merchant account can be downloaded; no url while not generated. */
export const PAYMENT_LEVEL_FEES = /* GraphQL */ `
  query PaymentLevelFees($date: Date!, $merchantAccountId: ID) {
    report {
      paymentLevelFees(date: $date, merchantAccountId: $merchantAccountId) {
        url
      }
    }
  }
`;

export const PAYOUT_DOCUMENTS = { SETTLED_TRANSACTIONS, SETTLED_REFUNDS, RECEIVED_DISPUTES, PAYMENT_LEVEL_FEES } as const;
