// Password hashing with scrypt (node:crypto), self-describing so parameters can change later.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_LENGTH, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  // A user without a password (e.g. not yet activated) still costs one scrypt, so timing says nothing.
  const parts = (stored ?? '').split('$');
  const valid = parts.length === 6 && parts[0] === 'scrypt';
  const [N, r, p] = valid ? parts.slice(1, 4).map(Number) : [PARAMS.N, PARAMS.r, PARAMS.p];
  const salt = valid ? Buffer.from(parts[4], 'base64') : randomBytes(16);
  const expected = valid ? Buffer.from(parts[5], 'base64') : randomBytes(KEY_LENGTH);
  const actual = await scryptAsync(password, salt, expected.length, { N, r, p });
  return valid && timingSafeEqual(actual, expected);
}
