for (const m of ['xstate','zod','better-sqlite3','uWebSockets.js','pino','prom-client','ai','@ai-sdk/openai','@ai-sdk/anthropic','@ai-sdk/openai-compatible','@modelcontextprotocol/sdk/server/index.js','ajv','croner','standardwebhooks']) {
  const t0 = performance.now();
  try { await import(m); } catch (e) { console.log(m, 'ERR', e.message.slice(0,80)); continue; }
  console.log(m, Math.round(performance.now() - t0));
}
