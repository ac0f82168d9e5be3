import { http } from '../../shared/http/index.ts';
import { scriptAnswer } from '../../shared/hosted/answers.ts';
import { browserScript } from '../../shared/hosted/browser-scripts.ts';
import { CardFieldsScriptQuery } from '../../shared/schemas/hosted.ts';

const answer = scriptAnswer(browserScript('card-fields'));

export const handler = http({ auth: 'public', query: CardFieldsScriptQuery, file: 'text/javascript' }, async () => answer);
