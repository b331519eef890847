// Guards the outbound-destination check reused by the http tool and outbound webhooks (SSRF).
import http from 'node:http';
import t from 'tap';
import { createGuardedLookup, DESTINATION_REFUSED, isPrivateAddress, isPrivateIp } from '../../../runtime/tools/network-guard.js';
import { startRecordingUpstream } from './recording-upstream.js';

t.test('private, loopback, link-local and unspecified addresses are private; public ones are not', async (t) => {
  const privateOnes = [
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '[::1]',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
  ];
  const publicOnes = ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2001:4860:4860::8888', 'fec0::1'];
  for (const ip of privateOnes) t.equal(isPrivateIp(ip), true, `${ip} is private`);
  for (const ip of publicOnes) t.equal(isPrivateIp(ip), false, `${ip} is public`);
  t.equal(isPrivateIp('example.com'), false, 'names are not judged without resolving them');
});

t.test('isPrivateAddress resolves names: localhost is private; any private answer makes a name private', async (t) => {
  t.equal(await isPrivateAddress('localhost'), true);
  t.equal(await isPrivateAddress('127.0.0.1'), true);
  t.equal(await isPrivateAddress('8.8.8.8'), false);
  const resolver = (answers: string[]) => async () => answers;
  t.equal(await isPrivateAddress('mixed.example', resolver(['93.184.216.34', '10.0.0.5'])), true);
  t.equal(await isPrivateAddress('public.example', resolver(['93.184.216.34', '2606:2800:220:1::'])), false);
  const notFound = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  await t.rejects(isPrivateAddress('does-not-exist.invalid', notFound), { code: 'ENOTFOUND' }, 'an unresolvable name is an error, not "public"');
});

t.test('the guarded lookup refuses to dial a name that resolves privately; with private networks allowed it is not installed', async (t) => {
  const upstream = await startRecordingUpstream();
  t.teardown(() => upstream.close());
  const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
    const req = http.request({ host: 'localhost', port: upstream.port, path: '/', lookup: createGuardedLookup(false), agent: false });
    req.on('error', resolve);
    req.on('response', () => resolve(new Error('connected')));
    req.end();
  });
  t.equal(error.code, DESTINATION_REFUSED);
  t.equal(upstream.received.length, 0);
  t.equal(createGuardedLookup(true), undefined);
});
