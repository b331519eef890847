import { createService } from './http/service.js';
const s = await createService({ dbPath: ':memory:' });
const port = await s.listen(0, '127.0.0.1');
const doc = await (await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`)).json() as any;
console.log(Object.keys(doc.paths).filter((p) => /triggers|events|webhooks/.test(p)));
console.log(JSON.stringify(doc.paths['/api/v1/triggers'].post.requestBody).slice(0, 400));
await s.close();
