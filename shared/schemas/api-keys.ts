import * as v from 'valibot';
import { listQuery, Name } from './common.ts';

export const CreateApiKeyBody = v.object({
  name: v.pipe(Name, v.examples(['Checkout server'])),
  mode: v.pipe(
    v.optional(v.picklist(['live', 'test'])),
    v.description("default: the mode the request acts in (a key's own; a session's test unless Livemode: true)"),
  ),
  type: v.pipe(
    v.optional(v.picklist(['secret', 'publishable']), 'secret'),
    v.description("`publishable` (`pk_…`): public, for shoppers' browsers; it may only create payment methods and load the hosted pages"),
  ),
});

export const ListApiKeysQuery = listQuery('apiKey');
