import { http } from '../../shared/http/index.ts';
import { scriptAnswer } from '../../shared/hosted/answers.ts';
import { CARD_FIELDS_FRAME_SCRIPT } from '../../shared/hosted/card-fields-frame-script.ts';

const answer = scriptAnswer(CARD_FIELDS_FRAME_SCRIPT);

export const handler = http({ auth: 'public', file: 'text/javascript' }, async () => answer);
