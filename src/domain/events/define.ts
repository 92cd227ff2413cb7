// Every event type is one zod schema, built only through its definition: producers cannot emit a
// payload the catalogue does not describe.
import type { z } from 'zod';
import type { EventSpec } from '../../actors/event-sequencer.js';

export interface Recipients {
  /** null = every user of the organization. */
  readonly userIds: readonly number[] | null;
  readonly perUser?: EventSpec['perUser'];
  readonly publicChannelId?: number | null;
}

export interface EventDefinition<T extends z.ZodTypeAny> {
  readonly type: string;
  readonly schema: T;
  build(payload: z.input<T>, to: Recipients): EventSpec;
}

export function defineEvent<T extends z.ZodTypeAny>(type: string, schema: T): EventDefinition<T> {
  return {
    type,
    schema,
    build(payload, to) {
      return {
        type,
        payload: schema.parse(payload) as Record<string, unknown>,
        userIds: to.userIds,
        perUser: to.perUser,
        publicChannelId: to.publicChannelId ?? null,
      };
    },
  };
}
