// Owns `switchyard start`: opens the database, applies --manifest, seeds the demo when allowed, serves until a signal.
import { loadManifestFile } from '../../runtime/manifest/load.js';
import { mintDemoKey, seedDemo, seededDemo, type DemoSeed } from '../../runtime/demo.js';
import { demoPlan } from './demo-plan.js';
import { packageFile } from './package-root.js';
import { serviceConfig, type ConfigFlags } from './service-config.js';

export interface StartOptions extends ConfigFlags {
  manifest?: string;
  demo?: boolean;
}

/** Human lines go to stderr: stdout carries the JSON log lines only, for whatever collects them. */
const say = (text: string): void => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);

export async function startCommand(options: StartOptions): Promise<void> {
  const config = serviceConfig(options);
  // Read before the database is opened: a refused manifest leaves no new database file behind.
  const manifest = options.manifest === undefined ? null : loadManifestFile(options.manifest);
  const { createService } = await import('../../http/service.js');
  const service = await createService({ config });
  try {
    const earlier = await seededDemo(service.store);
    const plan = demoPlan({
      flag: options.demo,
      manifestGiven: manifest !== null,
      databaseEmpty: await service.store.repos.tenancy.isEmpty(),
      demoSeededEarlier: earlier !== null,
    });
    if (manifest !== null) await service.applyManifest(manifest);
    let demo: DemoSeed | null = null;
    if (plan === 'seed') demo = await seedDemo(service, loadManifestFile(packageFile('examples/demo.workspace.json')));
    if (plan === 'new-key' && earlier !== null) demo = await mintDemoKey(service.store, earlier);
    const port = await service.listen(config.port, config.host);
    const base = config.publicUrl ?? `http://${config.host}:${port}`;
    say(demo?.banner(base) ?? `Switchyard is running at ${base}  (API base: ${base}/api/v1)   Stop: Ctrl-C`);
    if (plan === 'skip-existing') say(`The database ${service.driver.target} already holds data: the demo workspace was not seeded (--demo seeds it).`);
  } catch (error) {
    await service.close();
    throw error;
  }

  const stop = async (signal: string): Promise<void> => {
    say(`${signal}: shutting down…`);
    try {
      await service.close();
      process.exit(0);
    } catch (error) {
      say(`switchyard: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    }
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
