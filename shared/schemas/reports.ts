import * as v from 'valibot';
import { PERIODS } from '../domain/analytics.ts';
import { listQuery } from './common.ts';
import { Currency } from './payments.ts';

export const AnalyticsQuery = v.object({
  period: v.optional(v.picklist(Object.keys(PERIODS) as (keyof typeof PERIODS)[]), '30d'),
  currency: v.optional(Currency),
});

export const ListSettlementsQuery = listQuery('settlement', {
  status: v.optional(v.picklist(['pending', 'paid'])),
});
