import { http } from '../../shared/http/index.ts';
import { scriptAnswer } from '../../shared/hosted/answers.ts';
import { browserScript } from '../../shared/hosted/browser-scripts.ts';

const answer = scriptAnswer(browserScript('card-form'));

export const handler = http({ auth: 'public', file: 'text/javascript' }, async () => answer);
