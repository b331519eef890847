// Builds the management services (triggers, automations, API keys, knowledge clean-up) the management routes call.
import type { Storage } from '../../storage/port/storage.js';
import type { Clock } from '../clock.js';
import type { ScheduleTicks } from '../triggers/schedule-ticks.js';
import { createApiKeyService, type ApiKeyService } from './api-keys.service.js';
import { createAutomationManager, type AutomationManager } from './automation-manager.service.js';
import { createKnowledgeManager, type KnowledgeManager } from './knowledge-manager.service.js';
import { createTriggerManager, type TriggerManager } from './trigger-manager.service.js';

export interface ManageServices {
  manage: {
    triggers: TriggerManager;
    automations: AutomationManager;
    apiKeys: ApiKeyService;
    knowledge: KnowledgeManager;
  };
}

export function createManageServices(deps: { store: Storage; clock: Clock; scheduleTicks: ScheduleTicks }): ManageServices {
  return {
    manage: {
      triggers: createTriggerManager(deps),
      automations: createAutomationManager(deps),
      apiKeys: createApiKeyService(deps),
      knowledge: createKnowledgeManager(deps),
    },
  };
}
