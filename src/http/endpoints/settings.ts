// PATCH /settings: the user's own name, password and personal settings (every key of the
// `user_settings` object, the time zone and email visibility included).
import { z, type ZodTypeAny } from 'zod';
import { errors } from '../../domain/errors.js';
import { isAdmin } from '../../domain/roles.js';
import { hashPassword, verifyPassword } from '../../domain/secrets.js';
import {
  isValidTimezone,
  USER_SETTING_NAMES,
  USER_SETTINGS,
  type SettingKind,
  type UserSettingName,
  type UserSettingValue,
} from '../../domain/user-settings.js';
import { getCredentials } from '../../store/users.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';
import { checkPasswordStrength } from './users.js';

/** The parameter codec of one setting: its type, then its allowed values. */
export function settingParam(k: SettingKind): ZodTypeAny {
  const invalid = { message: 'Invalid {var}' };
  switch (k.kind) {
    case 'bool':
      return p.bool();
    case 'int':
      return p.int().refine((v) => k.values.includes(v), invalid);
    case 'range':
      return p.int().refine((v) => v >= k.min && v <= k.max, invalid);
    case 'enum':
      return p.string().refine((v) => k.values.includes(v), invalid);
    case 'string':
      return p.string({ max: k.max });
  }
}

/** Optional parameters for every personal setting, in the table's order. */
export const settingParams = Object.fromEntries(
  USER_SETTING_NAMES.map((n) => [n, settingParam(USER_SETTINGS[n] as SettingKind).optional()]),
) as Record<UserSettingName, z.ZodOptional<ZodTypeAny>>;

export const updateSettings = userEndpoint(
  z.object({
    full_name: p.string().optional(),
    email: p.string({ trim: true }).optional(),
    old_password: p.string().optional(),
    new_password: p.string().optional(),
    timezone: p.string().refine(isValidTimezone, { message: '{var} is not a recognized time zone' }).optional(),
    ...settingParams,
  }),
  async (ctx, params) => {
    const { user, realm } = ctx;
    const realmSettings = realm.state.realm.settings;
    if (params.full_name !== undefined && params.full_name.trim() !== user.full_name) {
      if (realmSettings.name_changes_disabled && !isAdmin(user.role)) throw errors.nameChangesDisabled();
    }
    if (params.email !== undefined && params.email !== user.delivery_email) {
      if (realmSettings.email_changes_disabled && !isAdmin(user.role)) throw errors.emailChangesDisabled();
      // Changing one's address needs a confirmation mail to the new one; Parley sends no mail.
      throw errors.badRequest('Email address changes need a confirmation email, which this server does not send.');
    }
    let passwordHash: string | undefined;
    if (params.new_password !== undefined && params.new_password !== '') {
      if (params.old_password === undefined) throw errors.missingArgument('old_password');
      const creds = await getCredentials(ctx.app.db, user.id);
      if (!(await verifyPassword(params.old_password, creds.password_hash))) throw errors.wrongPassword();
      checkPasswordStrength(params.new_password);
      passwordHash = await hashPassword(params.new_password);
    }
    const settings: Array<readonly [UserSettingName | 'timezone', UserSettingValue]> = [];
    for (const name of USER_SETTING_NAMES) {
      const v = params[name] as UserSettingValue | undefined;
      if (v !== undefined) settings.push([name, v]);
    }
    if (params.timezone !== undefined) settings.push(['timezone', params.timezone]);
    await realm.ask('user.updateOwn', { userId: user.id, fullName: params.full_name, settings, passwordHash });
    return {};
  },
);
