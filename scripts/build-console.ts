// Builds the web console (console/) into dist/console: content-hashed assets and an index.html that names them.
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles console/main.tsx (and its CSS) and writes `<outDir>/index.html` and `<outDir>/assets/*-<hash>.*`. */
export async function buildConsole(outDir = `${root}dist/console`): Promise<{ script: string; style: string }> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(`${outDir}/assets`, { recursive: true });
  const result = await build({
    entryPoints: [`${root}console/main.tsx`],
    bundle: true,
    minify: true,
    // No source maps: the package ships no .map files (test/e2e/pack.test.ts).
    sourcemap: false,
    format: 'esm',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: `${outDir}/assets`,
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error(`console build produced no script or style: ${outputs.join(', ')}`);
  writeFileSync(`${outDir}/index.html`, page(script, style));
  return { script, style };
}

/** No inline script or style: the Content-Security-Policy allows 'self' only. */
function page(script: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switchyard console</title>
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body>
<div id="app"><noscript>The Switchyard console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { script, style } = await buildConsole();
  // stderr: `npm pack --json` runs prepare and its stdout must stay JSON.
  process.stderr.write(`console built: ${script}, ${style}\n`);
}
