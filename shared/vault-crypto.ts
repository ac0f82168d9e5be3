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
 * its mode's vault KMS key in the cloud, or locally by its mode's raw AES-256 key from `VAULT_KEY_FILE`: test and live
 * cards are sealed under different keys, so a test key's reach ends at test cards. The encryption context names what
 * the value belongs to (its `livemode` chooses the key); it is authenticated with the ciphertext, and `open` refuses
 * a value whose context is not exactly the one expected, so a sealed card copied under another merchant or pm id does
 * not open.
 */
export type VaultContext = Record<string, string>;

type Mode = 'test' | 'live';

/** The local key file: `{"test": "<base64>", "live": "<base64>"}`, 32 random bytes each (infra/local/vault-key.ts writes it). */
export const readVaultKeyFile = (path: string): Record<Mode, Uint8Array> => {
  let keys: Record<string, unknown>;
  try {
    keys = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    throw new Error(`Vault key file ${path} is not JSON`);
  }
  const keyOf = (mode: Mode) => {
    const key = Buffer.from(String(keys[mode] ?? ''), 'base64');
    if (key.length !== 32) throw new Error(`Vault key file ${path} does not hold a base64 AES-256 key for ${mode} mode`);
    // the SDK takes the key only in a buffer of its own (a small Buffer shares Node's pool)
    return new Uint8Array(key);
  };
  return { test: keyOf('test'), live: keyOf('live') };
};

const { encrypt, decrypt } = buildClient(CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);

const keyrings = new Map<Mode, KeyringNode>();
function vaultKeyring(mode: Mode): KeyringNode {
  const kept = keyrings.get(mode);
  if (kept) return kept;
  const arn = mode === 'live' ? config.VAULT_LIVE_KMS_KEY_ARN : config.VAULT_TEST_KMS_KEY_ARN;
  let keyring: KeyringNode;
  if (arn) {
    keyring = new KmsKeyringNode({ generatorKeyId: arn });
  } else if (config.VAULT_KEY_FILE) {
    keyring = new RawAesKeyringNode({
      keyNamespace: 'payments-vault',
      keyName: `local-key-file-${mode}`,
      unencryptedMasterKey: readVaultKeyFile(config.VAULT_KEY_FILE)[mode],
      wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
    });
  } else {
    throw new Error('This function may not use the card vault (no vault KMS keys or VAULT_KEY_FILE)');
  }
  keyrings.set(mode, keyring);
  return keyring;
}

/** The mode whose key seals a value: its context's `livemode`, which every vault context carries. */
function modeOf(context: VaultContext): Mode {
  const mode = context.livemode === 'true' ? 'live' : context.livemode === 'false' ? 'test' : undefined;
  if (!mode) throw new Error('A vault context names its mode (livemode)');
  return mode;
}

/** Seals `plaintext` under `context`: the Encryption SDK's message (header with the context, wrapped data key, body). */
export async function seal(plaintext: string, context: VaultContext): Promise<Uint8Array> {
  const { result } = await encrypt(vaultKeyring(modeOf(context)), plaintext, { encryptionContext: context });
  return result;
}

/** The one key the Encryption SDK adds to a context itself (with a signing algorithm suite). */
const SDK_CONTEXT_KEY = 'aws-crypto-public-key';

/** Opens what `seal` made under the same context; throws when the message or its context is not that. */
export async function open(sealed: Uint8Array, context: VaultContext): Promise<string> {
  const { plaintext, messageHeader } = await decrypt(vaultKeyring(modeOf(context)), sealed);
  // Exactly our context: every key we set with our value, and no other key but the SDK's own (the signing public key).
  const found = Object.entries(messageHeader.encryptionContext).filter(([name]) => name !== SDK_CONTEXT_KEY);
  if (found.length !== Object.keys(context).length || found.some(([name, value]) => !Object.hasOwn(context, name) || context[name] !== value)) {
    throw new Error('Vault value sealed under another encryption context');
  }
  return plaintext.toString('utf8');
}
