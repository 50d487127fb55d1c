/**
 * `GET {base_url}` (application, token, organization, user) and `GET /types` (the
 * organization's custom-field validations).
 */
import { RESOURCES } from '../../registry/index.js';
import type { Core } from './core.js';
import type { HandlerResponse } from './resources.js';
import type { Principal } from '../rules/types.js';

/** The root document. Field names are the sandbox's choice: the spec does not show them. */
export function handleRoot(core: Core, authorization: string, p: Principal): HandlerResponse {
  const token = core.auth.authenticate(authorization);
  const app = p.appId ? core.auth.client(p.appId) : undefined;
  const user = core.store.get('user', p.userId);
  const body = {
    meta: {
      application: app ? { id: app.clientId, name: app.name } : null,
      token: {
        scopes: token.scopes,
        createdAt: new Date(token.createdAt).toISOString().slice(0, 19),
        expiresAt: new Date(token.expiresAt).toISOString().slice(0, 19),
        expiresIn: Math.max(0, Math.floor((token.expiresAt - Date.now()) / 1000)),
      },
      organization: { id: core.org.id, name: core.org.name, shortName: core.org.shortName, instance: core.instance },
      user: {
        id: p.userId,
        email: user?.attributes['email'] ?? null,
        name: user?.attributes['name'] ?? null,
        admin: p.admin,
      },
    },
    links: Object.fromEntries([['self', core.baseUrl], ...RESOURCES.map((r) => [r.path, `${core.baseUrl}/${r.path}`])]),
  };
  return { status: 200, body: JSON.stringify(body) };
}

/** `GET /types`: every type with custom fields and its validations map. */
export function handleTypes(core: Core): HandlerResponse {
  const data = RESOURCES.filter((r) => r.customFields).map((r) => ({
    type: r.type,
    meta: { validations: core.org.customFields[r.type] ?? {} },
  }));
  return { status: 200, body: JSON.stringify({ data }) };
}
