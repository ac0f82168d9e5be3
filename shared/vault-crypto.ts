import { readFileSync } from 'node:fs';
import {
  buildClient,
  CommitmentPolicy,
  type KeyringNode,
  KmsKeyringNode,
  RawAesKeyringNode,
  RawAesWrappingSuiteIdentifier,
} from '@aws-crypto/client-node';
import { config } from './config.ts';

/**
 * Envelope encryption for the card vault with the AWS Encryption SDK: each value gets its own data key, wrapped by
 * the vault's KMS key in the cloud, or locally by a raw AES-256 key read from `VAULT_KEY_FILE`. The encryption
 * context names what the value belongs to; it is authenticated with the ciphertext, and `open` refuses a value whose
 * context is not exactly the one expected, so a sealed card copied under another merchant or pm id does not open.
 */
export type VaultContext = Record<string, string>;

/** The local key file: 32 random bytes, base64 (infra/local/vault-key.ts writes it). */
export const readVaultKeyFile = (path: string): Uint8Array => {
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`Vault key file ${path} does not hold a base64 AES-256 key`);
  // the SDK takes the key only in a buffer of its own (a small Buffer shares Node's pool)
  return new Uint8Array(key);
};

const { encrypt, decrypt } = buildClient(CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);

let keyring: KeyringNode | undefined;
function vaultKeyring(): KeyringNode {
  if (keyring) return keyring;
  if (config.VAULT_KMS_KEY_ARN) {
    keyring = new KmsKeyringNode({ generatorKeyId: config.VAULT_KMS_KEY_ARN });
  } else if (config.VAULT_KEY_FILE) {
    keyring = new RawAesKeyringNode({
      keyNamespace: 'payments-vault',
      keyName: 'local-key-file',
      unencryptedMasterKey: readVaultKeyFile(config.VAULT_KEY_FILE),
      wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
    });
  } else {
    throw new Error('This function may not use the card vault (no VAULT_KMS_KEY_ARN or VAULT_KEY_FILE)');
  }
  return keyring;
}

/** Seals `plaintext` under `context`: the Encryption SDK's message (header with the context, wrapped data key, body). */
export async function seal(plaintext: string, context: VaultContext): Promise<Uint8Array> {
  const { result } = await encrypt(vaultKeyring(), plaintext, { encryptionContext: context });
  return result;
}

/** The one key the Encryption SDK adds to a context itself (with a signing algorithm suite). */
const SDK_CONTEXT_KEY = 'aws-crypto-public-key';

/** Opens what `seal` made under the same context; throws when the message or its context is not that. */
export async function open(sealed: Uint8Array, context: VaultContext): Promise<string> {
  const { plaintext, messageHeader } = await decrypt(vaultKeyring(), sealed);
  // Exactly our context: every key we set with our value, and no other key but the SDK's own (the signing public key).
  const found = Object.entries(messageHeader.encryptionContext).filter(([name]) => name !== SDK_CONTEXT_KEY);
  if (found.length !== Object.keys(context).length || found.some(([name, value]) => !Object.hasOwn(context, name) || context[name] !== value)) {
    throw new Error('Vault value sealed under another encryption context');
  }
  return plaintext.toString('utf8');
}
