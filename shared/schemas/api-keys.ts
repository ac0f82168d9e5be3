import * as v from 'valibot';
import { listQuery, Name } from './common.ts';

export const CreateApiKeyBody = v.object({
  name: Name,
  mode: v.optional(v.picklist(['live', 'test']), 'test'),
});

export const ListApiKeysQuery = listQuery('apiKey');
