// The secret-hash memo: the same hash as hashing anew, only for a well-formed secret of the kind asked, however often.
import t from 'tap';
import { createSecretHashes } from '../../../runtime/auth/secret-hashes.js';
import { hashSecret, mintSecret } from '../../../runtime/auth/secrets.js';

t.test('a well-formed secret hashes as hashSecret does, the first time and from memory', async (t) => {
  const hashOf = createSecretHashes();
  const key = mintSecret('sv_');
  t.same(hashOf(key, 'sv_'), hashSecret(key));
  t.same(hashOf(key, 'sv_'), hashSecret(key), 'remembered');
});

t.test('another kind, a bad checksum or garbage is null, also after the secret was remembered as its own kind', async (t) => {
  const hashOf = createSecretHashes();
  const key = mintSecret('sv_');
  const token = mintSecret('svu_');
  t.not(hashOf(key, 'sv_'), null);
  t.not(hashOf(token, 'svu_'), null);
  t.equal(hashOf(key, 'svu_'), null, 'an sv_ key is not a user token');
  t.equal(hashOf(token, 'sv_'), null, 'a user token is not an sv_ key');
  t.equal(hashOf(key, 'svs_'), null);
  const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
  t.equal(hashOf(tampered, 'sv_'), null, 'a wrong checksum');
  t.equal(hashOf('sv_short', 'sv_'), null);
  t.equal(hashOf('', 'sv_'), null);
});
