/** Connector accounts as the API returns them (shared/domain/connectors.ts): never their credentials. */
import * as v from 'valibot';
import { PROVIDERS } from '../../providers/types.ts';
import { Id, list, Livemode, Metadata, Timestamp } from './common.ts';

export const Connector = v.object({
  id: Id('connector'),
  object: v.literal('connector'),
  provider: v.picklist(PROVIDERS),
  mode: v.picklist(['test', 'live']),
  label: v.nullable(v.string()),
  status: v.picklist(['active', 'disabled']),
  credentials_hint: v.pipe(v.string(), v.description('enough to recognise the credentials, never to use them'), v.examples(['…4242'])),
  webhook_url: v.pipe(v.string(), v.url(), v.description("paste into the provider's dashboard to send this account's notifications here")),
  fees: v.pipe(
    v.object({ percent: v.number(), fixed: v.pipe(v.number(), v.integer()) }),
    v.description("the account's card price (routing's cost, a payout line's expected fee): percent of the amount plus fixed minor units"),
  ),
  created_at: Timestamp,
  livemode: Livemode,
  metadata: Metadata,
});

export const ConnectorList = list(Connector);

export const DeletedConnector = v.object({ id: Id('connector'), object: v.literal('connector'), deleted: v.literal(true) });
