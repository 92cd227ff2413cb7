// The API's one error type. Every failure a client can see is an ApiError built by a named
// factory below; src/http/dispatch.ts serialises it in exactly one place. Codes are what clients
// branch on; messages follow the reference server's wording so that clients (and our tests) can
// match them exactly.

export type ErrorData = Record<string, unknown>;

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly data: ErrorData | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: string,
    msg: string,
    status = 400,
    data?: ErrorData,
    headers?: Record<string, string>,
  ) {
    super(msg);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.data = data;
    this.headers = headers;
  }

  /** The JSON body of the error response. */
  toJSON(): Record<string, unknown> {
    return { result: 'error', msg: this.message, code: this.code, ...this.data };
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

const bad = (msg: string, data?: ErrorData) => new ApiError('BAD_REQUEST', msg, 400, data);

/** Named factories: handlers never spell out a code or status themselves. */
export const errors = {
  badRequest: bad,

  // Parameters (src/http/params.ts)
  missingArgument: (name: string) =>
    new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name }),
  invalidJson: (name: string) => bad(`Argument "${name}" is not valid JSON.`),
  invalidParameter: (msg: string) => bad(msg),
  incompatibleParameters: (names: string[]) =>
    bad(`Unsupported parameter combination: ${names.join(', ')}`, { parameters: names.join(', ') }),
  tooLong: (name: string, limit: number) => bad(`${name} is too long (limit: ${limit} characters)`),
  invalidUtf8: () => bad('Request body is not valid UTF-8'),
  malformedBody: (detail: string) => bad(`Malformed request body: ${detail}`),

  // Transport
  notFound: () => new ApiError('NOT_FOUND', 'Endpoint does not exist', 404),
  methodNotAllowed: (allowed: string[]) =>
    new ApiError('METHOD_NOT_ALLOWED', 'Method Not Allowed', 405, undefined, {
      Allow: allowed.join(', '),
    }),
  bodyTooLarge: (limit: number) =>
    new ApiError('REQUEST_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes`, 413),
  requestTimeout: () => new ApiError('REQUEST_TIMEOUT', 'Request body was not received in time', 408),
  unsupportedMediaType: (type: string) =>
    new ApiError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type: ${type}`, 415),
  rateLimited: (retryAfterSeconds: number) =>
    new ApiError(
      'RATE_LIMIT_HIT',
      'API usage exceeded rate limit',
      429,
      { 'retry-after': retryAfterSeconds },
      { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    ),
  internal: (requestId: string) =>
    new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500, { request_id: requestId }),
  unavailable: (what: string) =>
    new ApiError('SERVICE_UNAVAILABLE', `${what} is temporarily unavailable; retry later`, 503, undefined, {
      'Retry-After': '5',
    }),

  // Organizations and authentication
  realmNotFound: () => new ApiError('BAD_REQUEST', 'Organization not registered', 404),
  notLoggedIn: () =>
    new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401, undefined, {
      'WWW-Authenticate': 'Basic realm="parley"',
    }),
  invalidAuthorizationHeader: () =>
    new ApiError('UNAUTHORIZED', 'Invalid authorization header for basic auth', 401, undefined, {
      'WWW-Authenticate': 'Basic realm="parley"',
    }),
  invalidApiKey: () =>
    new ApiError('INVALID_API_KEY', 'Invalid API key', 401, undefined, {
      'WWW-Authenticate': 'Basic realm="parley"',
    }),
  userDeactivated: () => new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401),
  realmDeactivated: () => new ApiError('REALM_DEACTIVATED', 'This organization is deactivated', 401),
  badCredentials: () =>
    new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401),

  // Permissions
  unauthorizedPrincipal: () =>
    new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400),
  mustBeOwner: () => bad('Must be an organization owner'),
  insufficientPermission: () => bad('Insufficient permission'),
  notAllowedForBots: () => bad('This endpoint does not accept bot requests.'),
  notAllowedForGuests: () => bad('Not allowed for guest users'),

  // Common lookups
  noSuchUser: () => bad('No such user'),
  invalidUserId: (id: number) => bad(`Invalid user ID: ${id}`),
  invalidChannelId: () => bad('Invalid channel ID'),
  invalidMessage: () => bad('Invalid message(s)'),

  // User groups
  invalidUserGroup: () => bad('Invalid user group'),
  invalidUserGroupId: (id: number) => bad(`Invalid user group ID: ${id}`),
  userGroupDeactivated: () => bad('User group is deactivated.'),
  userGroupExists: (name: string) => bad(`User group '${name}' already exists.`),
  groupInUse: (objections: readonly Record<string, unknown>[]) =>
    new ApiError('CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.', 400, { objections }),
  noNewData: () => bad('No new data supplied'),

  // Push notifications
  pushServiceNotConfigured: () =>
    new ApiError('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.', 400),
  invalidTokenLength: () => bad('Empty or invalid length token'),
} as const;
