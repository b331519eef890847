// A stand-in worker for test/bin/supervisor.test.ts: "crash" exits 3 at once; "serve" reports listening and exits 0 on SIGTERM.
if (process.env.FIXTURE_MODE === 'crash') {
  process.exit(3);
} else {
  process.send({ switchyard: 'listening', port: 0 });
  const keepAlive = setInterval(() => {}, 1000);
  process.once('SIGTERM', () => {
    clearInterval(keepAlive);
    process.exit(0);
  });
}
