// A small realm for renderer tests: a few users (two sharing a name), groups, channels, one
// custom emoji and one linkifier. Lookups behave as the realm actor's do: names
// case-insensitive, deactivated users invisible.
import type { MarkdownContext } from '../../src/domain/markdown/index.js';

export interface TestUser {
  readonly id: number;
  readonly fullName: string;
  readonly active?: boolean;
}

export const testUsers: readonly TestUser[] = [
  { id: 10, fullName: 'Alice Smith' },
  { id: 11, fullName: 'Bob' },
  { id: 12, fullName: 'Sam' },
  { id: 13, fullName: 'Sam' },
  { id: 14, fullName: 'Gone Person', active: false },
  { id: 15, fullName: 'Eve "<script>" O\'Neil' },
];

export function testContext(overrides: Partial<MarkdownContext> = {}): MarkdownContext {
  const active = testUsers.filter((u) => u.active !== false);
  const pick = (u: TestUser | undefined) => (u ? { id: u.id, fullName: u.fullName } : null);
  const groups = [
    { id: 5, name: 'backend' },
    { id: 6, name: 'design team' },
  ];
  const channels = [
    { id: 7, name: 'general' },
    { id: 8, name: 'dev team' },
    { id: 9, name: 'x"y<z&' },
  ];
  return {
    userByName: (name) => pick(active.find((u) => u.fullName.toLowerCase() === name.toLowerCase())),
    userById: (id) => pick(active.find((u) => u.id === id)),
    groupByName: (name) => groups.find((g) => g.name.toLowerCase() === name.toLowerCase()) ?? null,
    channelByName: (name) => channels.find((c) => c.name.toLowerCase() === name.toLowerCase()) ?? null,
    realmEmoji: (name) =>
      name === 'parrot' ? { id: '3', name: 'parrot', url: '/user_avatars/2/emoji/images/3.png' } : null,
    linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://tracker.example.com/issues/{id}' }],
    ...overrides,
  };
}
