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

  forbidden: (msg: string) => new ApiError('FORBIDDEN', msg, 403),

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
  mustBeOwner: () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400),
  insufficientPermission: () => bad('Insufficient permission'),
  notAllowedForBots: () => bad('This endpoint does not accept bot requests.'),
  notAllowedForGuests: () => bad('Not allowed for guest users'),

  // Accounts
  guestAsAdmin: () => bad('Guests cannot be organization administrators'),
  lastOwnerRole: () => bad('The owner permission cannot be removed from the only organization owner.'),
  lastOwnerDeactivation: () => bad('Cannot deactivate the only organization owner'),
  cannotDeactivateLastUser: (isLastOwner: boolean) =>
    new ApiError(
      'CANNOT_DEACTIVATE_LAST_USER',
      isLastOwner ? 'Cannot deactivate the only organization owner' : 'Cannot deactivate the only user.',
      400,
      { is_last_owner: isLastOwner, entity: isLastOwner ? 'organization owner' : 'user' },
    ),
  emailInUse: (email: string) => bad(`Email '${email}' already in use`),
  nameNotUnique: () => bad('Unique names required in this organization.'),
  nameChangesDisabled: () => bad('Name changes are disabled in this organization.'),
  emailChangesDisabled: () => bad('Email address changes are disabled in this organization.'),
  cannotChangeUserEmails: () => bad('User not authorized to change user emails'),
  notAuthorizedForQuery: () => bad('User not authorized for this query'),
  userIsDeactivated: () => bad('User is deactivated'),
  wrongPassword: () => bad('Wrong password!'),
  weakPassword: () => bad('The password is too weak.'),
  noSuchBot: () => bad('No such bot'),
  avatarChangesDisabled: () => bad('Avatar changes are disabled in this organization.'),
  exactlyOneFile: (what: string) => bad(`You must upload exactly one ${what}.`),
  fileTooLarge: (limitMib: number) => bad(`Uploaded file is larger than the allowed limit of ${limitMib} MiB`),
  notAnImage: () => bad('Could not decode image; did you upload an image file?'),
  fileNotFound: () => new ApiError('NOT_FOUND', 'File not found', 404),
  videocallsNotConfigured: () => bad('Video calls are not configured on this server.'),
  navigationViewNotFound: () => new ApiError('NOT_FOUND', 'Navigation view does not exist.', 404),
  draftNotFound: () => new ApiError('BAD_REQUEST', 'Draft does not exist', 404),
  draftsNotSynchronized: () => bad('User has disabled synchronizing drafts.'),
  scheduledMessageNotFound: () => new ApiError('BAD_REQUEST', 'Scheduled message does not exist', 404),
  reminderNotFound: () => new ApiError('BAD_REQUEST', 'Reminder does not exist', 404),

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
  pushDeviceNotRecognized: () => new ApiError('INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized', 400),
  noActivePushDevice: () => new ApiError('NO_ACTIVE_PUSH_DEVICE', 'No active registered push device', 400),
  pushServiceUnreachable: () => new ApiError('FAILED_TO_CONNECT_BOUNCER', 'Network error while connecting to the push notification service.', 502),
  pushServiceFailed: () => new ApiError('INTERNAL_SERVER_ERROR_ON_BOUNCER', 'Internal server error on the push notification service, retry later.', 502),
  pushServiceRefused: () =>
    new ApiError('ADMIN_ACTION_REQUIRED', 'Push notification configuration issue on server, contact the server administrator or retry later.', 403),
  invalidTokenLength: () => bad('Empty or invalid length token'),
  // Channels, subscriptions and messages
  invalidPrincipal: (principal: string | number) =>
    new ApiError('UNAUTHORIZED_PRINCIPAL', `User not authorized to execute queries on behalf of '${principal}'`, 403, {
      principal,
    }),
  invalidChannelName: (name: string) => bad(`Invalid channel name '${name}'`),
  channelDoesNotExist: (name: string) =>
    new ApiError('STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, 400, { stream: name }),
  channelIdDoesNotExist: (id: number) =>
    new ApiError('STREAM_DOES_NOT_EXIST', `Channel with ID '${id}' does not exist`, 400, { stream_id: id }),
  channelsDoNotExist: (names: readonly string[]) => bad(`Channel(s) (${names.join(', ')}) do not exist`),
  channelExists: (name: string) => new ApiError('CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`, 400),
  /** POST /channels/create: the name is a conflict with the channel that has it. */
  channelAlreadyExists: (name: string) => new ApiError('CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`, 409),
  cannotAdministerChannel: () =>
    new ApiError('CANNOT_ADMINISTER_CHANNEL', 'You do not have permission to administer this channel.', 400),
  notSubscribed: (channelId: number) => bad(`Not subscribed to channel ID ${channelId}`),
  notAuthorizedToSend: (name: string) => bad(`Not authorized to send to channel '${name}'`),
  noPostPermission: () => bad('You do not have permission to post in this channel.'),
  noNewTopicPermission: () => bad('You do not have permission to create new topics in this channel.'),
  emptyTopicNotAllowed: (displayName = 'general chat') =>
    new ApiError('TOPIC_REQUIRED', `Sending messages to the ${displayName} topic is not allowed in this channel.`, 400),
  namedTopicsNotAllowed: (displayName = 'general chat') =>
    new ApiError('TOPICS_NOT_ALLOWED', `Only the ${displayName} topic is allowed in this channel.`, 400),
  streamWildcardNotAllowed: () =>
    new ApiError(
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use channel wildcard mentions in this channel.',
      400,
    ),
  topicWildcardNotAllowed: () =>
    new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.', 400),
  moveTimeLimitExceeded: (firstAllowed: number | null, total: number, allowed: number) =>
    new ApiError(
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      `You only have permission to move the ${allowed}/${total} most recent messages in this topic.`,
      400,
      {
        first_message_id_allowed_to_move: firstAllowed,
        total_messages_in_topic: total,
        total_messages_allowed_to_move: allowed,
      },
    ),
  editConflict: () =>
    new ApiError('EXPECTATION_MISMATCH', "'prev_content_sha256' value does not match the expected value.", 400),
  badNarrow: (desc: string) => new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400),
  tooManyMessages: (max: number) => bad(`Too many messages requested (maximum ${max}).`),
  messageEmpty: () => bad('Message must not be empty'),
  messageNullBytes: () => bad('Message must not contain null bytes'),
  missingTopic: () => bad('Missing topic'),
  invalidEmail: (email: string) => bad(`Invalid email '${email}'`),
  reactionExists: () => new ApiError('REACTION_ALREADY_EXISTS', 'Reaction already exists.', 400),
  reactionDoesNotExist: () => new ApiError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.", 400),
  uploadTooLarge: (limitMib: number) => bad(`Uploaded file is larger than the allowed limit of ${limitMib} MiB`),
  invalidAttachment: () => bad('Invalid attachment'),
} as const;
