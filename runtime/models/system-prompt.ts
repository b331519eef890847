// Owns how an agent's principles, procedure and knowledge snippets become one system prompt for provider models.
import type { SystemContext } from './model.js';

/**
 * Sections are omitted when empty so a bare agent sends a bare prompt. The tool note matters because
 * provider function names cannot contain dots: the procedure says `#crm.get_contact`, and each tool's
 * description starts with that wire id so the model can connect the two (see ai-sdk-tools.ts).
 */
export function renderSystemPrompt(system: SystemContext): string {
  const sections: string[] = [];
  if (system.principles.trim()) sections.push(`# Principles\n\n${system.principles.trim()}`);
  if (system.procedure.trim()) {
    sections.push(
      `# Procedure\n\n${system.procedure.trim()}\n\n` +
        'A reference written "#integration.tool" names the tool whose description begins with "[integration.tool]".',
    );
  }
  if (system.knowledge.length > 0) {
    const articles = system.knowledge.map((snippet) => `## ${snippet.title.trim()}\n\n${snippet.body.trim()}`);
    sections.push(`# Knowledge\n\n${articles.join('\n\n')}`);
  }
  return sections.join('\n\n');
}
