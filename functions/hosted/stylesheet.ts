import { http } from '../../shared/http/index.ts';
import { stylesheetAnswer } from '../../shared/hosted/look.ts';
import { StylesheetQuery } from '../../shared/schemas/hosted.ts';

/** The shopper pages' one stylesheet, in the merchant's colour. */
export const handler = http({ auth: 'public', query: StylesheetQuery, file: 'text/css' }, async ({ query }) => stylesheetAnswer(query.accent));
