// Every event type is one zod schema, built only through its definition: producers cannot emit a
// payload the catalogue does not describe.
import type { z } from 'zod';
import type { EventSpec } from '../../actors/event-sequencer.js';
import { exactCheck } from '../exact-check.js';

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

/** Every definition made, in the order of their modules' loading (tests check them all). */
export const eventDefinitions: Array<EventDefinition<z.ZodTypeAny>> = [];

export function defineEvent<T extends z.ZodTypeAny>(type: string, schema: T): EventDefinition<T> {
  // The payload itself when zod would return an equal value (the common case: no copy), else
  // zod's result or error.
  const exact = exactCheck(schema);
  const definition: EventDefinition<T> = {
    type,
    schema,
    build(payload, to) {
      return {
        type,
        payload: (exact(payload) ? payload : schema.parse(payload)) as Record<string, unknown>,
        userIds: to.userIds,
        perUser: to.perUser,
        publicChannelId: to.publicChannelId ?? null,
      };
    },
  };
  eventDefinitions.push(definition);
  return definition;
}
