// Matches method + path against route patterns (`/agents/:automationId/sessions`).
import type { Route } from './types.js';

interface Compiled<S> {
  route: Route<S>;
  segments: string[];
}

export interface Match<S> {
  route: Route<S>;
  params: Record<string, string>;
}

export type RouteLookup<S> = { match: Match<S> } | { allowed: string[] } | null;

export class Router<S> {
  private readonly compiled: Compiled<S>[] = [];
  /** Patterns by segment count, most specific first: a path is only tried against patterns of its own length. */
  private byLength = new Map<number, Compiled<S>[]>();
  /** Fully literal patterns by `METHOD path`: the most specific match there is, found without a scan. */
  private literal = new Map<string, Route<S>>();

  constructor(routes: Route<S>[] = []) {
    routes.forEach((route) => this.add(route));
  }

  add(route: Route<S>): void {
    const duplicate = this.compiled.find((c) => c.route.method === route.method && c.route.path === route.path);
    if (duplicate) throw new Error(`route ${route.method} ${route.path} registered twice`);
    this.compiled.push({ route, segments: route.path.split('/').filter(Boolean) });
    // Literal segments beat parameters: `/agents/sessions/:id` must win over `/agents/:automationId/...`.
    this.compiled.sort((a, b) => specificity(b.segments) - specificity(a.segments));
    this.byLength = new Map();
    this.literal = new Map();
    for (const c of this.compiled) {
      const bucket = this.byLength.get(c.segments.length) ?? [];
      bucket.push(c);
      this.byLength.set(c.segments.length, bucket);
      if (!c.segments.some((s) => s.startsWith(':'))) this.literal.set(`${c.route.method} /${c.segments.join('/')}`, c.route);
    }
  }

  get routes(): Route<S>[] {
    return this.compiled.map((c) => c.route);
  }

  /** A match, or the methods the path allows (for 405), or null (404). */
  lookup(method: string, path: string): RouteLookup<S> {
    const parts = path.split('/').filter(Boolean);
    const literal = this.literal.get(`${method} /${parts.join('/')}`);
    if (literal !== undefined) return { match: { route: literal, params: {} } };
    const allowed: string[] = [];
    for (const { route, segments } of this.byLength.get(parts.length) ?? []) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method) return { match: { route, params } };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { allowed } : null;
  }
}

function specificity(segments: string[]): number {
  return segments.reduce((score, s, i) => score + (s.startsWith(':') ? 0 : 2 ** (16 - i)), 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(parts[i]);
      } catch {
        return null;
      }
      params[p.slice(1)] = value;
    } else if (p !== parts[i]) return null;
  }
  return params;
}
