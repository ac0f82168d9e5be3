import * as v from 'valibot';
import { Email, listQuery, Metadata, Name, Phone } from './common.ts';

export const CreateCustomerBody = v.object({
  email: Email,
  name: v.optional(Name),
  phone: v.optional(Phone),
  metadata: v.optional(Metadata),
});

export const UpdateCustomerBody = v.object({
  email: v.optional(Email),
  name: v.optional(Name),
  phone: v.optional(Phone),
  metadata: v.optional(Metadata),
});

export const ListCustomersQuery = listQuery('customer');
