// Stored user settings: the hand-written reader must give exactly what the zod schema gives, for
// every stored form, valid or not (src/domain/user-settings.ts, parseUserSettings).
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseUserSettings, storedUserSettings, USER_SETTING_NAMES, USER_SETTINGS, userSettingsSchema } from '../../src/domain/user-settings.js';

const reading = suite('reading stored user settings');

/** zod's answer: the parsed value, or the fact that it refused. */
function viaZod(raw: unknown): { ok: true; value: unknown } | { ok: false } {
  const r = userSettingsSchema.safeParse(raw ?? {});
  return r.success ? { ok: true, value: r.data } : { ok: false };
}

function viaReader(raw: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseUserSettings(raw) };
  } catch {
    return { ok: false };
  }
}

const anyValue = fc.oneof(
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 8 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
/** A value of the setting's own kind, mostly, so that valid forms are common. */
const settingValue = (name: (typeof USER_SETTING_NAMES)[number]) => {
  const kind = USER_SETTINGS[name].kind;
  const right = kind === 'bool' ? fc.boolean() : kind === 'int' || kind === 'range' ? fc.integer({ min: -5, max: 300 }) : fc.string({ maxLength: 12 });
  return fc.oneof({ weight: 9, arbitrary: right }, { weight: 1, arbitrary: anyValue });
};
const storedForm = fc.record(
  {
    ...Object.fromEntries(USER_SETTING_NAMES.map((n) => [n, settingValue(n)])),
    timezone: fc.oneof({ weight: 9, arbitrary: fc.constantFrom('', 'Europe/Paris') }, { weight: 1, arbitrary: anyValue }),
    unknown_key: anyValue,
  },
  { requiredKeys: [] },
);

reading('the reader and the zod schema agree on every stored form', () => {
  fc.assert(
    fc.property(fc.oneof({ weight: 20, arbitrary: storedForm }, { weight: 1, arbitrary: anyValue }), (raw) => {
      assert.equal(viaReader(raw), viaZod(raw));
    }),
    { numRuns: 2000 },
  );
});

reading('keys named after Object.prototype members are dropped like other unknown keys', () => {
  for (const text of ['{"__proto__": {"enter_sends": true}, "toString": 1, "constructor": "x"}', '{"hasOwnProperty": false, "enter_sends": true}']) {
    const raw: unknown = JSON.parse(text);
    assert.equal(viaReader(raw), viaZod(raw), text);
  }
  const inherited = Object.create({ enter_sends: true }) as object;
  assert.equal(viaReader(inherited), viaZod(inherited));
});

reading('accounts that stored no settings share one frozen object of defaults', () => {
  const a = parseUserSettings({});
  assert.is(parseUserSettings(null), a);
  assert.is(parseUserSettings({ no_such_setting: 1, enter_sends: undefined }), a);
  assert.ok(Object.isFrozen(a));
  assert.equal(a, userSettingsSchema.parse({}));
  const own = parseUserSettings({ enter_sends: true });
  assert.is.not(own, a);
  assert.not.ok(Object.isFrozen(own));
  assert.is(a.enter_sends, USER_SETTINGS.enter_sends.default);
});

reading('absent settings take their defaults; unknown keys are dropped', () => {
  const s = parseUserSettings({ enter_sends: true, no_such_setting: 1 }) as Record<string, unknown>;
  assert.is(s.enter_sends, true);
  assert.is(s.presence_enabled, USER_SETTINGS.presence_enabled.default);
  assert.is(s.timezone, '');
  assert.not.ok('no_such_setting' in s);
  assert.throws(() => parseUserSettings({ enter_sends: 'yes' }));
});

reading('the stored form keeps exactly the settings that differ from their defaults, and reads back whole', () => {
  const defaults = userSettingsSchema.parse({}) as Record<string, unknown>;
  assert.equal(storedUserSettings(parseUserSettings({})), {});
  assert.equal(storedUserSettings(userSettingsSchema.parse({})), {});
  fc.assert(
    fc.property(storedForm, (raw) => {
      const parsed = userSettingsSchema.safeParse(raw);
      if (!parsed.success) return;
      const settings = parsed.data;
      const stored = storedUserSettings(settings);
      const differing = Object.keys(settings).filter((k) => (settings as Record<string, unknown>)[k] !== defaults[k]);
      assert.equal(Object.keys(stored).sort(), differing.sort());
      // Through JSON, as the jsonb column gives it back.
      assert.equal(parseUserSettings(JSON.parse(JSON.stringify(stored))), settings);
    }),
    { numRuns: 1000 },
  );
});

reading.run();
