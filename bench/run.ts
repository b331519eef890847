// `npm run bench`: the scenario list (a new scenario module is one import and one entry here) and the entry point.
import { runBench } from './runner.js';
import type { Scenario } from './scenario.js';
import { authReadMeNodeScenario, authReadMeScenario } from './scenarios/auth-read.scenario.js';
import { healthzNodeScenario, healthzScenario } from './scenarios/healthz.scenario.js';
import { actorsScenario } from './actors.bench.js';
import { sseScenario } from './sse.bench.js';
import { fireScenario } from './fire.bench.js';
import { openSessionScenario } from './open-session.bench.js';
import { mcpScenario } from './mcp.bench.js';
import { sustainedScenario } from './sustained.bench.js';

const SCENARIOS: Scenario[] = [healthzScenario, healthzNodeScenario, authReadMeScenario, authReadMeNodeScenario, actorsScenario, fireScenario, sustainedScenario, openSessionScenario, mcpScenario, sseScenario];

try {
  process.exitCode = await runBench(SCENARIOS, process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
