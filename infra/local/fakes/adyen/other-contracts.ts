/**
 * Adyen's Webhooks v1 and Disputes API v30 contracts (`infra/local/fakes/contracts/`), as the fake checks what it
 * sends and what it is sent: JSON Schema 2020-12 validators of their component schemas, compiled on first use.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { FORMATS } from './contract.ts';

type Json = Record<string, unknown>;
interface Document {
  components: { schemas: Record<string, Json> };
  paths?: Record<string, Record<string, Json>>;
  webhooks?: Record<string, Record<string, Json>>;
}

const contractFile = (name: string) => fileURLToPath(new URL(`../contracts/${name}`, import.meta.url));

function validatorsOf(file: string) {
  let document: Document | undefined;
  let ajv: Ajv2020 | undefined;
  const compiled = new Map<string, ValidateFunction>();
  const load = () => (document ??= JSON.parse(readFileSync(file, 'utf8')) as Document);
  const validate = (schema: string, body: unknown): string | undefined => {
    let check = compiled.get(schema);
    if (!check) {
      // strict: false: the documents carry OpenAPI's own keywords (x-addedInVersion, example).
      ajv ??= new Ajv2020({ allErrors: false, strict: false, formats: FORMATS }).addSchema({ $id: file, components: load().components });
      check = ajv.compile({ $ref: `${file}#/components/schemas/${schema}` });
      compiled.set(schema, check);
    }
    if (check(body)) return undefined;
    return (check.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message ?? 'is invalid'}`).join('; ');
  };
  const post = (path: string) => {
    const doc = load();
    const operation = (doc.paths ?? doc.webhooks)?.[path]?.post as
      | {
          requestBody?: { content: Record<string, { schema: { $ref: string } }> };
          responses?: Record<string, { content?: Record<string, { schema: { $ref: string } }> }>;
        }
      | undefined;
    if (!operation) throw new Error(`POST ${path} is not in ${file}`);
    return operation;
  };
  const nameOf = (ref: string | undefined) => ref?.split('/').pop() ?? 'ServiceError';
  /** The schema name of the JSON request body of POST `path` (a path, or a webhook's name). */
  const requestSchema = (path: string) => nameOf(post(path).requestBody?.content['application/json']?.schema.$ref);
  /** The schema name of POST `path`'s JSON answer with `status` (undocumented statuses: a ServiceError). */
  const responseSchema = (path: string, status: number) => nameOf(post(path).responses?.[String(status)]?.content?.['application/json']?.schema.$ref);
  return { validate, requestSchema, responseSchema };
}

const webhooks = validatorsOf(process.env.ADYEN_WEBHOOKS_CONTRACT ?? contractFile('adyen-Webhooks-v1.json'));
const disputes = validatorsOf(process.env.ADYEN_DISPUTES_CONTRACT ?? contractFile('adyen-DisputeService-v30.json'));

/** Why `body` is not the notification Webhooks v1 describes for its event code (`/CAPTURE`, …), or undefined. */
export function notificationProblem(eventCode: string, body: unknown): string | undefined {
  return webhooks.validate(webhooks.requestSchema(`/${eventCode}`), body);
}

/** The Disputes API operations the connector calls (all POST). */
export const DISPUTE_OPERATIONS = ['retrieveApplicableDefenseReasons', 'supplyDefenseDocument', 'defendDispute', 'acceptDispute'] as const;
export type DisputeOperation = (typeof DISPUTE_OPERATIONS)[number];

/** Why `body` is not a valid request of POST /`operation`, or undefined. */
export const disputeRequestProblem = (operation: DisputeOperation, body: unknown) => disputes.validate(disputes.requestSchema(`/${operation}`), body);

/** Why `body` is not what POST /`operation` answers with `status`, or undefined. */
export const disputeResponseProblem = (operation: DisputeOperation, status: number, body: unknown) =>
  disputes.validate(disputes.responseSchema(`/${operation}`, status), body);
