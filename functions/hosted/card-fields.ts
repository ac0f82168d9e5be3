import { http } from '../../shared/http/index.ts';
import { cardFieldsPage } from '../../shared/hosted/card-fields-page.ts';
import { CardFieldsQuery } from '../../shared/schemas/hosted.ts';

/** The framed page; its errors are pages too (shared/hosted/answers.ts). */
export const handler = http({ auth: 'public', query: CardFieldsQuery, file: 'text/html', errors: [401] }, async ({ query }) =>
  cardFieldsPage(query.key, query.origin),
);
