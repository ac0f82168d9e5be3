import { settlementLinesCsv } from '../../shared/domain/settlements.ts';
import { FileBody, http } from '../../shared/http/index.ts';

/** A settlement's lines as CSV (`text/csv`), for the finance team's books. */
export const handler = http(
  { auth: 'merchant', permission: 'finance:read', params: { id: 'settlement' }, file: 'text/csv' },
  async ({ merchant, params }) => {
    const csv = await settlementLinesCsv(merchant, params.id);
    return new FileBody('text/csv; charset=utf-8', new TextEncoder().encode(csv), {
      'Content-Disposition': `attachment; filename="${params.id}-lines.csv"`,
      'Cache-Control': 'private, no-store',
    });
  },
);
