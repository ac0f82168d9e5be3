import * as v from 'valibot';
import { listQuery, Name } from './common.ts';

export const CreateApiKeyBody = v.object({
  name: v.pipe(Name, v.examples(['Checkout server'])),
  mode: v.optional(v.picklist(['live', 'test']), 'test'),
});

export const ListApiKeysQuery = listQuery('apiKey');
