import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

/** The first `chars` hexadecimal characters of the SHA-256 of `text` (UTF-8). */
export function sha256Hex(text: string, chars = 64): string {
  return bytesToHex(sha256(utf8ToBytes(text))).slice(0, chars);
}

/** `bytes` random bytes as hexadecimal characters. */
export function randomHex(bytes: number): string {
  return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}
