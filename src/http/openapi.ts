// The OpenAPI 3.1 document of Parley's HTTP API, generated from the route table and each
// endpoint's parameter schema (GET /api/v1/openapi.json). It is also the fuzzer's input.
import type { z } from 'zod';
import { SESSION_COOKIE } from './sessions.js';
import { SERVICE_VERSION } from '../version.js';
import type { Endpoint } from './endpoint.js';
import { paramDoc } from './params.js';
import type { Method, RouteTable } from './router.js';

type Json = Record<string, unknown>;

const errorSchema: Json = {
  type: 'object',
  required: ['result', 'msg', 'code'],
  properties: {
    result: { const: 'error' },
    msg: { type: 'string' },
    code: { type: 'string', description: 'Machine-readable error code; clients branch on it.' },
  },
  additionalProperties: true,
};

const successSchema: Json = {
  type: 'object',
  required: ['result', 'msg'],
  properties: {
    result: { const: 'success' },
    msg: { const: '' },
    ignored_parameters_unsupported: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: true,
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function parameterSchemas(endpoint: Endpoint): Array<{ name: string; required: boolean; schema: Json; json: boolean }> {
  const shape = endpoint.params.shape as Record<string, z.ZodTypeAny>;
  return Object.entries(shape).map(([name, schema]) => {
    const { doc, required, default: dflt } = paramDoc(schema);
    const base: Json = doc ? { ...doc.schema } : { type: 'string' };
    // Codec defaults are written as a client sends them ('false', '[]'): document the value.
    if (dflt !== undefined) base.default = typeof dflt === 'string' && (doc?.json || base.type !== 'string') ? JSON.parse(dflt) : dflt;
    return { name, required, schema: base, json: doc?.json ?? false };
  });
}

/** Basic credentials everywhere; at the site root a browser session (cookie) as well. */
function securityOf(endpoint: Endpoint, api: boolean): Json[] {
  if (endpoint.auth === 'none') return [];
  const schemes: Json[] = api ? [{ basicAuth: [] }] : [{ basicAuth: [] }, { sessionCookie: [] }];
  return endpoint.auth === 'optional' ? [{}, ...schemes] : schemes;
}

function operation(path: string, method: Method, endpoint: Endpoint, api: boolean): Json {
  const pathParams = new Set([...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!));
  const params = parameterSchemas(endpoint);
  const inPath = params.filter((p) => pathParams.has(p.name));
  const rest = params.filter((p) => !pathParams.has(p.name));
  const op: Json = {
    operationId: `${method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+/g, '-')}`,
    parameters: inPath.map((p) => ({ name: p.name, in: 'path', required: true, schema: p.schema })),
    responses: {
      200: { description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } } },
      400: errorResponse('Invalid request'),
      401: errorResponse('Missing or invalid credentials'),
      404: errorResponse('Not found'),
      413: errorResponse('Request body too large'),
      429: errorResponse('Rate limit hit'),
      503: errorResponse('Temporarily unavailable'),
    },
    security: securityOf(endpoint, api),
  };
  if (!api) op['x-site-route'] = true;
  const describe = (p: (typeof rest)[number]) => ({
    ...p.schema,
    ...(p.json ? { description: 'JSON-encoded', 'x-json-encoded': true } : {}),
  });
  if (method === 'GET') {
    (op.parameters as Json[]).push(...rest.map((p) => ({ name: p.name, in: 'query', required: p.required, schema: describe(p) })));
  } else if (rest.length > 0) {
    const schema: Json = {
      type: 'object',
      properties: Object.fromEntries(rest.map((p) => [p.name, describe(p)])),
      required: rest.filter((p) => p.required).map((p) => p.name),
    };
    op.requestBody = {
      required: rest.some((p) => p.required),
      content: { 'application/x-www-form-urlencoded': { schema }, 'multipart/form-data': { schema } },
    };
  }
  return op;
}

export function buildOpenApi(tables: { api: RouteTable; site: RouteTable }): Json {
  const paths: Record<string, Json> = {};
  const add = (prefix: string, table: RouteTable, api: boolean) => {
    for (const [path, methods] of Object.entries(table)) {
      const item: Json = {};
      for (const [method, endpoint] of Object.entries(methods)) {
        if (endpoint) item[method.toLowerCase()] = operation(path, method as Method, endpoint as Endpoint, api);
      }
      paths[prefix + path] = item;
    }
  };
  add('/api/v1', tables.api, true);
  add('', tables.site, false);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley — Team Chat Service HTTP API',
      version: SERVICE_VERSION,
      description: 'Generated from the route table and the parameter schemas of every endpoint.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'email:api_key' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Set by POST /login; site-root routes only' },
      },
      schemas: { Success: successSchema, Error: errorSchema },
    },
    paths,
  };
}
