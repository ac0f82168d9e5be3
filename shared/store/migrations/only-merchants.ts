/** A scan filter's clause keeping the items of `merchantIds` (none: every item), with its values. */
export function onlyMerchants(merchantIds?: readonly string[]): { clause: string; values: Record<string, string> } {
  if (!merchantIds?.length) return { clause: '', values: {} };
  return {
    clause: ` AND merchant_id IN (${merchantIds.map((_, i) => `:m${i}`).join(', ')})`,
    values: Object.fromEntries(merchantIds.map((id, i) => [`:m${i}`, id])),
  };
}
