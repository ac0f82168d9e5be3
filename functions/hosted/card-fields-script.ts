import { http } from '../../shared/http/index.ts';
import { scriptAnswer } from '../../shared/hosted/answers.ts';
import { CARD_FIELDS_SCRIPT } from '../../shared/hosted/card-fields-script.ts';
import { CardFieldsScriptQuery } from '../../shared/schemas/hosted.ts';

const answer = scriptAnswer(CARD_FIELDS_SCRIPT);

export const handler = http({ auth: 'public', query: CardFieldsScriptQuery, file: 'text/javascript' }, async () => answer);
