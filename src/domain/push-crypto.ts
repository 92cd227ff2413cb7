// End-to-end-encrypted push (spec endpoint 9): the device's push key, the token id that names a
// provider token without revealing it, and the encryption of notification payloads.
// Cryptosystem 0x31 is NaCl secretbox (XSalsa20-Poly1305) with a 32-byte key; a payload is sent
// as standard Base64 of the 24-byte nonce followed by the box.
import { createHash, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';

export const SECRETBOX_CRYPTOSYSTEM = 0x31;
export const PUSH_KEY_BYTES = nacl.secretbox.keyLength;
export const MAX_PUSH_KEY_ID = 0xffff_ffff;

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of standard (RFC 4648, padded) Base64, or null when it is not that. */
export function decodeStandardBase64(s: string): Buffer | null {
  if (s.length === 0 || !STANDARD_BASE64.test(s)) return null;
  return Buffer.from(s, 'base64');
}

/** A push key as clients send it: the cryptosystem byte then the key. Null when unsupported. */
export function parsePushKey(b64: string): Buffer | null {
  const bytes = decodeStandardBase64(b64);
  if (!bytes || bytes.length !== 1 + PUSH_KEY_BYTES || bytes[0] !== SECRETBOX_CRYPTOSYSTEM) return null;
  return bytes;
}

/** The token id of a provider token: Base64 of the first 8 bytes of its SHA-256. */
export function tokenId(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest().subarray(0, 8).toString('base64');
}

/** Is this a token id (Base64 of exactly 8 bytes)? */
export const isTokenId = (s: string): boolean => decodeStandardBase64(s)?.length === 8;

/** Encrypt a payload for a device holding `pushKey` (as stored: cryptosystem byte + key). */
export function encryptForDevice(pushKey: Uint8Array, plaintext: string, nonce: Uint8Array = randomBytes(nacl.secretbox.nonceLength)): string {
  if (pushKey[0] !== SECRETBOX_CRYPTOSYSTEM || pushKey.length !== 1 + PUSH_KEY_BYTES) throw new Error('Unsupported push key');
  const box = nacl.secretbox(new TextEncoder().encode(plaintext), nonce, pushKey.subarray(1));
  return Buffer.concat([nonce, box]).toString('base64');
}

/** The inverse of encryptForDevice (what a device does); null when it does not authenticate. */
export function decryptOnDevice(pushKey: Uint8Array, data: string): string | null {
  const bytes = Buffer.from(data, 'base64');
  const nonce = bytes.subarray(0, nacl.secretbox.nonceLength);
  const opened = nacl.secretbox.open(bytes.subarray(nacl.secretbox.nonceLength), nonce, pushKey.subarray(1));
  return opened ? new TextDecoder().decode(opened) : null;
}
