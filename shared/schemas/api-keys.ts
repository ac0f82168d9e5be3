import * as v from 'valibot';
import { listQuery, Name } from './common.ts';

export const CreateApiKeyBody = v.object({
  name: v.pipe(Name, v.examples(['Checkout server'])),
  mode: v.pipe(
    v.optional(v.picklist(['live', 'test'])),
    v.description("default: the mode the request acts in (a key's own; a session's test unless Livemode: true)"),
  ),
});

export const ListApiKeysQuery = listQuery('apiKey');
